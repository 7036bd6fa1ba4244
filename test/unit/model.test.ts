import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTree, ProfileBuilder, bottomUp, functionStats } from '../../src/core/model';

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

test('call tree index: finds every (parent, frame) child again across many regrowths, past 2^21 nodes', () => {
  const tree = new CallTree(16);
  // A wide and deep tree: 2.5M nodes, so parents pass 2^21 and the index doubles many times.
  const n = 2_500_000;
  const ids = new Int32Array(n);
  for (let i = 1; i < n; i++) {
    const parent = i < 1000 ? 0 : ids[(Math.imul(i, 2654435761) >>> 0) % i];
    ids[i] = tree.child(parent, i % 4093);
  }
  assert.ok(tree.count > 0x200000, `${tree.count} nodes`);
  for (let i = 1; i < n; i += 997) {
    const node = ids[i];
    assert.equal(tree.child(tree.parent[node], tree.frame[node]), node, 'the same child comes back, nothing new is made');
  }
  const before = tree.count;
  tree.child(ids[n - 1], 4093);
  assert.equal(tree.count, before + 1, 'a new (parent, frame) pair makes one node');
});
