import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, bottomUp, functionStats } from '../../src/core/model';

function fr(b: ProfileBuilder, name: string): number {
  return b.frame({ name, file: '/app/x.js', line: 1, column: 1, category: 'app' });
}

test('call tree totals, bottom-up and recursion-safe function totals', () => {
  const b = new ProfileBuilder('folded');
  const [main, a, bb, c] = ['main', 'a', 'b', 'c'].map((n) => fr(b, n));
  b.sample([main, a, bb], 30);
  b.sample([main, a, c], 10);
  b.sample([main, a, a, c], 5); // recursion: a appears twice
  const p = b.build();
  assert.equal(p.tree.weight, 45);
  const stats = new Map(functionStats(p.tree, p.frames.length).map((s) => [s.frame, s]));
  assert.equal(stats.get(a)!.total, 45, 'recursive frame counted once per sample');
  assert.equal(stats.get(c)!.self, 15);
  assert.equal(stats.get(main)!.self, 0);
  const bu = bottomUp(p.tree);
  const cNode = bu.children(0).find((n) => bu.frame[n] === c)!;
  assert.equal(bu.total[cNode], 15);
  const callersOfC = bu.children(cNode).map((n) => [p.frames[bu.frame[n]].name, bu.total[n]]);
  assert.deepEqual(callersOfC, [['a', 15]]);
});
