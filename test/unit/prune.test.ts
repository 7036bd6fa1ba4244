import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Category } from '../../src/core/model';
import { pruneTree, heaviestNodeOf, pathTo, SMALL_FRAMES, type CompactTree } from '../../src/core/model/prune';
import { applyViewOptions } from '../../src/core/model/viewOptions';
import { matchedWeight, nameMatcher } from '../../src/core/model/search';

function fr(
  b: ProfileBuilder,
  name: string,
  category: Category = 'app',
  extra: { pkg?: string; tier?: 'interpreted' | 'turbofan'; column?: number } = {},
): number {
  return b.frame({ name, file: category === 'node' ? 'node:fs' : '/app/x.js', line: 1, column: extra.column ?? 1, category, ...extra });
}

function names(c: CompactTree, frames: { name: string }[]): string[] {
  return c.frame.map((f, i) => (f === SMALL_FRAMES ? `…${c.merged[i]}` : f < 0 ? 'root' : frames[f].name));
}

test('light children merge into one "small frames" node per parent; weights are kept', () => {
  const b = new ProfileBuilder('folded');
  const main = fr(b, 'main');
  const hot = fr(b, 'hot');
  b.sample([main, hot], 10000);
  // 300 distinct light leaves under main, 1 sample each (0.003% each, far below half a pixel).
  for (let i = 0; i < 300; i++) b.sample([main, fr(b, `tiny${i}`), fr(b, `tinier${i}`)], 1);
  const p = b.build();
  const c = pruneTree(p.tree);
  assert.deepEqual(names(c, p.frames), ['root', 'main', 'hot', '…600']);
  assert.equal(c.total[3], 300);
  assert.equal(c.parent[3], 1, 'merged node hangs under main');
  assert.equal(c.node[3], c.node[1], 'merged node points at its parent for expansion');
  assert.deepEqual(c.pruned, [1, 1, 0, 0], 'root and main are marked as having merged descendants');
  assert.equal(c.total[0], 10300);
  assert.equal(c.weight, 10300);
  // Asking for main's subtree at full detail, relative to main, brings the small frames back.
  const sub = pruneTree(p.tree, { root: c.node[1], minFraction: 0 });
  assert.equal(sub.frame.length, 1 + 1 + 600);
  assert.equal(sub.root, c.node[1]);
  assert.equal(sub.weight, 10300, 'shares stay relative to the whole profile');
  // Or only what the merged entry stood for, relative to its own weight.
  const small = pruneTree(p.tree, { root: c.node[1], smallerThan: c.minWeight });
  assert.equal(small.frame[0], SMALL_FRAMES);
  assert.equal(small.total[0], 300);
  assert.equal(small.frame.length, 601);
  assert.ok(!small.frame.includes(hot), 'the heavy sibling is not part of it');
});

test('a 100 000-node tree is sent as a bounded number of entries, and kept nodes survive', () => {
  const b = new ProfileBuilder('folded');
  const root = fr(b, 'root');
  let leaf = -1;
  for (let i = 0; i < 1000; i++) {
    const a = fr(b, `a${i}`);
    for (let j = 0; j < 99; j++) {
      const f = fr(b, `a${i}b${j}`);
      b.sample([root, a, f], 1 + (j % 3));
      if (i === 500 && j === 7) leaf = f;
    }
  }
  const p = b.build();
  assert.ok(p.tree.count > 100000);
  const c = pruneTree(p.tree, { maxNodes: 5000 });
  assert.ok(c.frame.length <= 5000, `${c.frame.length} entries`);
  const sum = c.total.reduce((s, v, i) => s + (c.parent[i] === 0 ? v : 0), 0);
  assert.equal(sum, p.tree.total[0], 'children of the root still add up to all samples');
  const target = heaviestNodeOf(p.tree, leaf);
  const kept = pruneTree(p.tree, { maxNodes: 5000, keep: pathTo(p.tree, target) });
  assert.ok(kept.node.includes(target), 'a revealed node is kept with its ancestors');
});

test('view options: hide node internals, collapse dependencies, merge tiers by function', () => {
  const b = new ProfileBuilder('folded');
  const handler = fr(b, 'handler');
  const fsRead = fr(b, 'readFileSync', 'node');
  const r1 = fr(b, 'Router.handle', 'dependency', { pkg: 'express' });
  const r2 = fr(b, 'next', 'dependency', { pkg: 'express' });
  const hotI = fr(b, 'hot', 'app', { tier: 'interpreted', column: 5 });
  const hotT = fr(b, 'hot', 'app', { tier: 'turbofan', column: 5 });
  b.sample([r1, r2, handler, fsRead], 4);
  b.sample([r1, r2, handler, hotI], 3);
  b.sample([r1, r2, handler, hotT], 2);
  const p = b.build();

  const raw = applyViewOptions(p, { mergeBy: 'line' });
  assert.equal(raw.tree, p.tree, 'nothing to change: the profile tree is shared, not copied');

  const v = applyViewOptions(p, { hideNodeInternals: true, collapseDependencies: true, mergeBy: 'function' });
  const stacks: string[] = [];
  v.tree.forEachStack((s, self) => stacks.push(`${s.map((f) => v.frames[f].name).join(';')} ${self}`));
  assert.deepEqual(stacks.sort(), ['express;handler 4', 'express;handler;hot 5']);
  assert.equal(v.frameMap[fsRead], -1);
  assert.equal(v.frameMap[hotI], v.frameMap[hotT]);
  assert.equal(v.frames[v.frameMap[hotI]].column, 5, 'the merged function keeps a column to navigate to');
  assert.equal(p.tree.count, raw.tree.count, 'the profile itself is untouched');
});

test('search share: each sample once, plain or regex, over the whole tree', () => {
  const b = new ProfileBuilder('folded');
  const [main, pb, inner, other] = ['main', 'pbkdf2Sync', 'node::crypto::PBKDF2Job', 'other'].map((n) => fr(b, n));
  b.sample([main, pb, inner], 60);
  b.sample([main, pb], 10);
  b.sample([main, other], 30);
  const p = b.build();
  assert.equal(matchedWeight(p.tree, p.frames, nameMatcher('pbkdf2', false)), 70, 'a match under a match is not counted twice');
  assert.equal(matchedWeight(p.tree, p.frames, nameMatcher('^other$|Job', true)), 90);
  assert.equal(matchedWeight(p.tree, p.frames, nameMatcher('nothing', false)), 0);
  assert.throws(() => nameMatcher('(', true));
});
