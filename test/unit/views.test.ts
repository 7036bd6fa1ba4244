import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attributed,
  bottomUp,
  categoryWeights,
  CallTree,
  functionStats,
  ProfileBuilder,
  tickSummary,
  type Category,
} from '../../src/core/model';
import { findFindings } from '../../src/core/findings';

/**
 * The hand-computed tree every test here checks against (weights in samples, 1 ms each):
 *   main;a;b      30
 *   main;a;c      10
 *   main;d        60
 *   main;a;a;b     5   direct recursion
 *   main;a;d;a     7   indirect recursion a → d → a
 * total 112.
 */
function sample() {
  const b = new ProfileBuilder('folded');
  const id: Record<string, number> = {};
  const cat: Record<string, Category> = { main: 'app', a: 'app', b: 'native', c: 'dependency', d: 'gc' };
  for (const n of ['main', 'a', 'b', 'c', 'd']) id[n] = b.frame({ name: n, file: '', line: 0, column: 0, category: cat[n] });
  const add = (s: string, w: number) =>
    b.sample(
      s.split(';').map((n) => id[n]),
      w,
      w,
    );
  add('main;a;b', 30);
  add('main;a;c', 10);
  add('main;d', 60);
  add('main;a;a;b', 5);
  add('main;a;d;a', 7);
  return { p: b.build(), id };
}

test('per-function self and total across call sites count a recursive sample once', () => {
  const { p, id } = sample();
  assert.equal(p.tree.weight, 112);
  const s = new Map(functionStats(p.tree, p.frames.length).map((x) => [x.frame, x]));
  const expect: Record<string, [number, number]> = { main: [0, 112], a: [7, 52], b: [35, 35], c: [10, 10], d: [60, 67] };
  for (const [name, [self, total]] of Object.entries(expect)) {
    assert.equal(s.get(id[name])!.self, self, `${name} self`);
    assert.equal(s.get(id[name])!.total, total, `${name} total`);
    // Every sample weighs 1 ms here, so times follow the weights exactly.
    assert.equal(s.get(id[name])!.selfTime, self, `${name} selfTime`);
    assert.equal(s.get(id[name])!.totalTime, total, `${name} totalTime`);
  }
});

/** The bottom-up tree as nested `name weight` strings, children sorted by name for a stable compare. */
function dump(t: CallTree, names: string[], node = 0): string[] {
  const out: string[] = [];
  const kids = t.children(node).sort((x, y) => names[t.frame[x]].localeCompare(names[t.frame[y]]));
  for (const k of kids) {
    out.push(`${names[t.frame[k]]} ${t.total[k]}`);
    for (const line of dump(t, names, k)) out.push('  ' + line);
  }
  return out;
}

test('bottom-up tree: each leaf function with its callers, weights by call chain', () => {
  const { p } = sample();
  const names = p.frames.map((f) => f.name);
  const bu = bottomUp(p.tree);
  assert.equal(bu.weight, 112, 'bottom-up keeps every sample');
  assert.deepEqual(dump(bu, names), [
    'a 7', //         leaf a (via main;a;d;a)
    '  d 7',
    '    a 7',
    '      main 7',
    'b 35',
    '  a 35',
    '    a 5', //     main;a;a;b
    '      main 5',
    '    main 30',
    'c 10',
    '  a 10',
    '    main 10',
    'd 60',
    '  main 60',
  ]);
  // A root child's total is that function's self weight.
  const self = new Map(functionStats(p.tree, p.frames.length).map((x) => [x.frame, x.self]));
  for (const r of bu.children(0)) assert.equal(bu.total[r], self.get(bu.frame[r]));
});

test('category summary, tick-processor groups and attributed share', () => {
  const { p } = sample();
  // One sample with no frame at all lands on the root: unaccounted.
  p.tree.addSelf(0, 8);
  const c = categoryWeights(p);
  // main;a;d;a: `a` runs under the GC frame `d`, so its 7 count as GC.
  assert.deepEqual([c.app, c.native, c.dependency, c.gc, c.unaccounted], [0, 35, 10, 67, 8]);
  const s = tickSummary(c);
  assert.equal(s.javascript, 10, 'app + dependency');
  assert.equal(s.cpp, 35);
  assert.equal(s.gc, 67);
  assert.equal(s.unaccounted, 8);
  assert.equal(attributed(p), 1 - 8 / 120);
});

test('a thread level folds away for one thread and stays for two', () => {
  const one = new ProfileBuilder('perf');
  const f = one.frame({ name: 'f', file: '', line: 0, column: 0, category: 'native' });
  one.sample([f], 3, 0, 'main');
  const p1 = one.build();
  assert.equal(p1.tree.frame[p1.tree.children(0)[0]], f);

  const two = new ProfileBuilder('perf');
  const g = two.frame({ name: 'g', file: '', line: 0, column: 0, category: 'native' });
  two.sample([g], 3, 0, 'main');
  two.sample([g], 2, 0, 'worker');
  const p2 = two.build();
  const roots = p2.tree.children(0).map((n) => [p2.frames[p2.tree.frame[n]].name, p2.tree.total[n]]);
  assert.deepEqual(roots.sort(), [
    ['thread main', 3],
    ['thread worker', 2],
  ]);
  // g is one function across both threads.
  const gs = functionStats(p2.tree, p2.frames.length).find((x) => x.frame === g)!;
  assert.deepEqual([gs.self, gs.total], [5, 5]);
});

test('one GC figure: what runs under a garbage-collector frame (perf: Heap::Scavenge calling V8 C++) counts as GC in the summary, as in the GC finding', () => {
  const b = new ProfileBuilder('perf');
  const main = b.frame({ name: 'main', file: '/ws/app.js', line: 1, column: 1, category: 'app' });
  const gc = b.frame({ name: 'v8::internal::Heap::Scavenge()', file: '', line: 0, column: 0, category: 'gc' });
  const cpp = b.frame({ name: 'v8::internal::ScavengerCollector::CollectGarbage()', file: '', line: 0, column: 0, category: 'native' });
  b.sample([main, gc], 5);
  b.sample([main, gc, cpp], 10);
  b.sample([main], 85);
  const p = b.build();
  const c = categoryWeights(p);
  assert.equal(c.gc, 15);
  assert.equal(c.native, 0);
  const gcFinding = findFindings(p).find((f) => f.rule === 'gc-pressure');
  assert.ok(gcFinding);
  assert.equal(gcFinding.share, c.gc / p.tree.weight);
});
