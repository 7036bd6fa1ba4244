import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder } from '../../src/core/model';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import type { HostMessage } from '../../src/core/viewer/protocol';

/** main;a;b 30 · main;a;c 10 · main;d 60 · main;a;a;b 5 · main;a;d;a 7 (as in transforms.test). */
function session(transforms?: Parameters<ViewerSession['setTransforms']>[0]) {
  const b = new ProfileBuilder('folded');
  const id: Record<string, number> = {};
  for (const n of ['main', 'a', 'b', 'c', 'd']) id[n] = b.frame({ name: n, file: `/app/${n}.js`, line: 1, column: 1, category: 'app' });
  const add = (s: string, w: number) =>
    b.sample(
      s.split(';').map((n) => id[n]),
      w,
    );
  add('main;a;b', 30);
  add('main;a;c', 10);
  add('main;d', 60);
  add('main;a;a;b', 5);
  add('main;a;d;a', 7);
  return new ViewerSession(b.build(), 'x.folded', '/x.folded', {}, transforms);
}

const of = <T extends HostMessage['type']>(ms: HostMessage[], type: T) =>
  ms.filter((m): m is Extract<HostMessage, { type: T }> => m.type === type);

test('the session applies a transform stack before the toggles; summary and trees follow it', () => {
  const s = session();
  const ms = s.setTransforms([{ kind: 'focus-function', fn: { name: 'd', file: '/app/d.js', line: 1 } }]);
  const [t] = of(ms, 'transforms');
  assert.equal(t.generation, 1);
  assert.equal(t.info.totalWeight, 67);
  assert.equal(t.error, undefined);
  const [tree] = of(ms, 'tree');
  assert.equal(tree.generation, 1);
  assert.equal(tree.data.total[0], 67);
  assert.deepEqual(
    tree.data.parent.map((p, i) => (p === 0 ? tree.frames[tree.data.frame[i]].name : undefined)).filter(Boolean),
    ['d'],
    'd is the only root child',
  );
  assert.equal(s.shownProfile().tree.weight, 67);
  assert.equal(s.profile.tree.weight, 112, 'the profile itself is untouched');
});

test('a refused Exclude pattern keeps the old stack and says why; the generation still moves with the page', () => {
  const s = session([{ kind: 'merge-function', fn: { name: 'a' } }]);
  const ms = s.setTransforms([
    { kind: 'merge-function', fn: { name: 'a' } },
    { kind: 'exclude', regex: '(x+)+y' },
  ]);
  const [t] = of(ms, 'transforms');
  assert.equal(t.error?.reason, 'nested');
  assert.deepEqual(t.transforms, [{ kind: 'merge-function', fn: { name: 'a' } }]);
  assert.equal(t.generation, 1);
  assert.equal(of(ms, 'tree')[0].generation, 1);
  // A stack restored from an older page's state with such a pattern starts empty.
  assert.deepEqual(session([{ kind: 'exclude', regex: '(a|b)*c' }]).transforms, []);
});

test('opening a restored session sends the stack before the trees; the sandwich answers both halves and their detail', () => {
  const s = session([{ kind: 'drop-function', fn: { name: 'c' } }]);
  const ms = s.opening({});
  assert.deepEqual(
    ms.map((m) => m.type),
    ['init', 'transforms', 'tree'],
  );
  const sw = s.sandwich({ name: 'a', file: '/app/a.js', line: 1 });
  assert.ok(sw.type === 'sandwich' && sw.callers && sw.callees);
  if (sw.type !== 'sandwich' || !sw.callers || !sw.callees) return;
  const names = (d: typeof sw.callers) => d.frame.map((f) => (f >= 0 ? sw.frames[f].name : 'all'));
  assert.deepEqual(names(sw.callers), ['all', 'a', 'main']);
  assert.equal(sw.callers.total[1], 42, 'a weighs 52 less the 10 samples of c that were dropped');
  assert.deepEqual(names(sw.callees).slice(0, 2), ['all', 'a']);
  const more = s.sandwichExpand({ generation: s.generation, side: 'callees', node: sw.callees.node[1], small: false, minWeight: 0 });
  assert.ok(more?.type === 'sandwich' && more.expand?.side === 'callees' && more.expand.data.total[0] === 42);
  assert.equal(
    s.sandwichExpand({ generation: s.generation + 1, side: 'callees', node: 1, small: false, minWeight: 0 }),
    undefined,
    'an old generation gets no answer',
  );
});
