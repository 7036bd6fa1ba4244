// The viewer's process and thread picker over a run read as one (mergeProfiles): the rows nest by parent pid
// with the newest sibling first, and a choice keeps only its threads' samples and line heat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles, ProfileBuilder, type Profile } from '../../src/core/model';
import { processRows, selectThreads } from '../../src/core/model/processes';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import type { HostMessage } from '../../src/core/viewer/protocol';

/** One process's profile: `main → fn` with `w` samples, and the line heat of fn's line 2. */
function one(fn: string, w: number): Profile {
  const b = new ProfileBuilder('cpuprofile', { durationMs: 100 });
  const main = b.frame({ name: '(root)', file: '', line: 0, column: 0, category: 'program' });
  const f = b.frame({ name: fn, file: '/app/shared.js', line: 1, column: 1, category: 'app' });
  b.sample([main, f], w);
  b.lineHit('/app/shared.js', 2, w, w);
  b.lineHit(`/app/${fn}.js`, 1, w, w);
  return b.build();
}

/** npm (10) → cli (5) → server (25) → worker (60), and a watch restart: two servers under cli, the later one newer. */
function run(): Profile {
  const parts = [
    { pid: 10, fn: 'npm', w: 10 },
    { pid: 20, fn: 'cli', w: 5 },
    { pid: 30, fn: 'server', w: 25 },
    { pid: 40, fn: 'worker', w: 60 },
    { pid: 50, fn: 'other', w: 1 },
    { pid: 35, fn: 'server2', w: 0 },
  ].filter((p) => p.w > 0);
  const p = mergeProfiles(
    parts.map(({ pid, fn, w }) => ({ profile: one(fn, w), thread: `pid ${pid} ${fn}`, pid })),
    { durationMs: 100 },
  );
  p.meta.processes = [
    { pid: 10, ppid: 1, command: 'npm start', startedAt: '2026-01-01T00:00:00.000Z' },
    // Started by npm through sh (no Node process, not recorded): top level, after npm.
    { pid: 50, ppid: 49, command: 'other-cli', startedAt: '2026-01-01T00:00:00.500Z' },
    { pid: 20, ppid: 10, command: 'pt-serve', startedAt: '2026-01-01T00:00:01.000Z' },
    { pid: 30, ppid: 20, command: 'server.js', startedAt: '2026-01-01T00:00:02.000Z' },
    { pid: 35, ppid: 20, command: 'server.js', startedAt: '2026-01-01T00:00:09.000Z' },
    { pid: 40, ppid: 30, command: 'worker.js', startedAt: '2026-01-01T00:00:03.000Z' },
  ];
  return p;
}

test('processRows: the process tree indented by parent pid, the newest child first, top-level processes in start order', () => {
  const rows = processRows(run());
  assert.deepEqual(
    rows.map((r) => [r.depth, r.pid, r.label, r.samples, r.threads.length]),
    [
      [0, 10, 'npm start', 10, 1],
      [1, 20, 'pt-serve', 5, 1],
      // The restart (pid 35, started later) before the first incarnation; it recorded no samples.
      [2, 35, 'server.js', 0, 0],
      [2, 30, 'server.js', 25, 1],
      [3, 40, 'worker.js', 60, 1],
      [0, 50, 'other-cli', 1, 1],
    ],
  );
  assert.deepEqual(processRows(one('alone', 5)), [], 'one process, one thread: no picker');
});

test('processRows: a process started through a shell nests under the nearest Node ancestor, or under the shell perf saw', () => {
  const p = run();
  // other-cli (50) was started by npm (10) through sh (49): its record names npm above the shell.
  p.meta.processes = p.meta.processes!.map((m) => (m.pid === 50 ? { ...m, ancestors: [10, 1] } : m));
  const rows = processRows(p).map((r) => [r.depth, r.pid]);
  // npm's children latest first: pt-serve's branch, then other-cli, one level under npm.
  assert.deepEqual(rows, [
    [0, 10],
    [1, 20],
    [2, 35],
    [2, 30],
    [3, 40],
    [1, 50],
  ]);
  // perf also sampled the shell (no record, so no parent of its own): the chain gives it npm as parent.
  const b = new ProfileBuilder('perf', { durationMs: 100 });
  const f = b.frame({ name: 'work', file: '/app/a.js', line: 1, column: 1, category: 'app' });
  for (const [pid, w] of [
    [10, 3],
    [49, 1],
    [50, 6],
  ]) {
    b.sample([f], w, 0, `node ${pid}/${pid}`);
    b.threadInfo(`node ${pid}/${pid}`, { pid, tid: pid });
  }
  const perf = b.build();
  perf.meta.processes = [
    { pid: 10, ppid: 1, command: 'npm start' },
    { pid: 50, ppid: 49, ancestors: [10, 1], command: 'other-cli' },
  ];
  assert.deepEqual(
    processRows(perf).map((r) => [r.depth, r.pid]),
    [
      [0, 10],
      [1, 49],
      [2, 50],
    ],
  );
});

test('processRows: a process of several threads (perf, worker threads) gets a row per thread under its own', () => {
  const b = new ProfileBuilder('perf', { durationMs: 100 });
  const f = b.frame({ name: 'work', file: '/app/a.js', line: 1, column: 1, category: 'app' });
  b.sample([f], 30, 0, 'node 10/10');
  b.threadInfo('node 10/10', { pid: 10, tid: 10 });
  b.sample([f], 10, 0, 'node 10/12');
  b.threadInfo('node 10/12', { pid: 10, tid: 12 });
  const p = b.build();
  const rows = processRows(p);
  assert.deepEqual(
    rows.map((r) => [r.depth, r.label, r.samples, r.threads, !!r.thread]),
    [
      [0, 'node 10/10', 40, ['node 10/10', 'node 10/12'], false],
      [1, 'node 10/10', 30, ['node 10/10'], true],
      [1, 'node 10/12', 10, ['node 10/12'], true],
    ],
  );
  const one = selectThreads(p, ['node 10/12']);
  assert.equal(one.tree.weight, 10);
  assert.equal(one.frames[one.tree.frame[one.tree.children(0)[0]]].name, 'work', 'one thread: no thread level');
});

test('selectThreads: one process alone is the whole tree (its level folded away), with its own line heat', () => {
  const p = run();
  const worker = selectThreads(p, ['pid 40 worker']);
  assert.equal(worker.tree.weight, 60);
  const [top] = worker.tree.children(0);
  assert.equal(worker.frames[worker.tree.frame[top]].name, '(root)', 'no process level above the stacks');
  assert.deepEqual(
    worker.threads.map((t) => t.pid),
    [40],
  );
  assert.equal(worker.lineHits.get('/app/shared.js')?.get(2)?.self, 60, 'the shared file heats by the worker alone');
  assert.ok(!worker.lineHits.has('/app/server.js'), 'no heat from the processes left out');
  assert.equal(p.lineHits.get('/app/shared.js')?.get(2)?.self, 101, 'the whole profile is untouched');

  const two = selectThreads(p, ['pid 30 server', 'pid 40 worker']);
  assert.equal(two.tree.weight, 85);
  assert.deepEqual(
    two.tree
      .children(0)
      .map((c) => two.frames[two.tree.frame[c]].name)
      .sort(),
    ['thread pid 30 server', 'thread pid 40 worker'],
    'several: a level per process',
  );
  assert.equal(selectThreads(p, []), p, 'an empty choice shows all');
  assert.equal(selectThreads(p, ['no such thread']), p);
});

test('the viewer session: a choice of threads is answered with the facts of what is shown and new trees; rows stay whole', () => {
  const s = new ViewerSession(run(), 'run', '/run');
  const first = s.info();
  assert.equal(first.processes?.length, 6);
  assert.equal(first.shownThreads, null);
  const ms: HostMessage[] = s.setThreads(['pid 40 worker']);
  const t = ms.find((m): m is Extract<HostMessage, { type: 'transforms' }> => m.type === 'transforms');
  assert.ok(t);
  assert.equal(t.info.totalWeight, 60);
  assert.equal(t.info.allWeight, 101);
  assert.deepEqual(t.info.shownThreads, ['pid 40 worker']);
  assert.equal(t.info.processes?.find((r) => r.pid === 30)?.samples, 25, 'shares of the whole run, whatever is chosen');
  const tree = ms.find((m): m is Extract<HostMessage, { type: 'tree' }> => m.type === 'tree');
  assert.equal(tree?.generation, 1);
  assert.equal(tree?.data.total[0], 60);
  assert.ok(s.narrowed);
  s.setThreads(undefined);
  assert.equal(s.shownProfile().tree.weight, 101);
  assert.ok(!s.narrowed);
  // A reloaded page's saved choice of threads this profile does not have: all.
  assert.ok(!new ViewerSession(run(), 'run', '/run', undefined, undefined, ['pid 99 gone']).narrowed);
});

test('processRows: a chain of 5 000 processes, each started by the one before, is listed without overflowing the stack', () => {
  const n = 5000;
  const p = mergeProfiles(
    Array.from({ length: n }, (_, i) => ({ profile: one(`f${i}`, 1), thread: `pid ${1000 + i}`, pid: 1000 + i })),
    { durationMs: 100 },
  );
  p.meta.processes = Array.from({ length: n }, (_, i) => ({ pid: 1000 + i, ppid: 999 + i, command: `node c${i}.js` }));
  const rows = processRows(p);
  assert.equal(rows.length, n);
  assert.deepEqual(
    rows.slice(0, 3).map((r) => [r.depth, r.pid]),
    [
      [0, 1000],
      [1, 1001],
      [2, 1002],
    ],
  );
  assert.equal(rows[n - 1].depth, n - 1);
  // The viewer's first screen over it, and a choice of the deepest process (the picker's rows go with both).
  const s = new ViewerSession(p, 'chain', '/chain');
  assert.equal(s.info().processes?.length, n);
  const ms: HostMessage[] = s.setThreads([`pid ${1000 + n - 1}`]);
  assert.ok(ms.some((m) => m.type === 'tree'));
});
