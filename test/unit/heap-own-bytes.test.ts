// Heap mode drops the profiler's own bytes from what it writes: the preload's start-up and its inspector calls, not an
// app's bytes that pass through the preload's hooks (jest's vm calls go through hookVm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropOwnCalls, type SamplingProfile } from '../../src/launch/preload/heapPositions';

// Bundled with this test, dropOwnCalls takes this file for the preload's own.
const OWN = __filename;
let nextId = 1;
type N = SamplingProfile['head'];
const node = (url: string, functionName: string, selfSize: number, children: N[] = []): N => ({
  id: nextId++,
  callFrame: { functionName, url, scriptId: '1', lineNumber: 0, columnNumber: 0 },
  selfSize,
  children,
});

test("the preload's start-up and inspector bytes go; an app's bytes through its hooks stay", () => {
  const startup = node('node:internal/modules/cjs/loader', 'Module._load', 0, [
    node(OWN, '(anonymous)', 100, [node(OWN, 'hookVm', 200), node('node:internal/util', 'promisify', 40)]),
  ]);
  const viaHook = node('node:vm', 'runInContext', 30, [node('evalmachine.<anonymous>', 'testBody', 500)]);
  const app = node('file:///app/main.js', 'main', 10, [
    node(OWN, 'hookedRunInContext', 5, [viaHook]),
    node(OWN, 'lookAtMainEnd', 0, [node('node:inspector', 'post', 70, [node('node:inspector', 'inner', 9)])]),
  ]);
  const head = node('', '(root)', 0, [startup, app]);
  const profile: SamplingProfile = {
    head,
    samples: [...walkIds(head)].map((id) => ({ nodeId: id, size: 1, ordinal: id })),
  };
  dropOwnCalls(profile);
  const left = new Map<string, number>();
  for (const n of walk(profile.head)) left.set(n.callFrame.functionName, n.selfSize);
  assert.deepEqual(Object.fromEntries(left), {
    '(root)': 0,
    'Module._load': 0,
    main: 10,
    hookedRunInContext: 5,
    runInContext: 30,
    testBody: 500,
  });
  const kept = new Set([...walk(profile.head)].map((n) => n.id));
  assert.ok((profile.samples as { nodeId: number }[]).every((x) => kept.has(x.nodeId)));
});

function* walk(n: N): Generator<N> {
  yield n;
  for (const c of n.children ?? []) yield* walk(c);
}
function* walkIds(n: N): Generator<number> {
  for (const x of walk(n)) yield x.id;
}
