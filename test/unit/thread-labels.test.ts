// One name per thread whatever the mode: the run's label function, run.json's thread records as far as they can be
// trusted, and a process's own thread levels (a prof log of a process and its workers) kept beside the other
// processes' in a merge instead of under a level of their process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles, ProfileBuilder } from '../../src/core/model';
import { diffTree } from '../../src/core/model/diff';
import { processRows, selectThreads } from '../../src/core/model/processes';
import { threadLabels } from '../../src/launch/run/threadLabels';
import { parseRunJson, type RunProcess } from '../../src/launch/run/runFolder';

const proc = (pid: number, threads?: RunProcess['threads']): RunProcess => ({
  pid,
  ppid: 1,
  command: ['/usr/bin/node', 'server.js'],
  exitCode: 0,
  startedAt: '',
  profiles: [],
  ...(threads ? { threads } : {}),
});

test('threadLabels: the main thread, a worker by threadId, a thread running no JavaScript by OS id; perf keeps its name for processes not recorded', () => {
  const label = threadLabels([proc(4242, [{ threadId: 1, tid: 4250 }])], (pid) => (pid === 4242 ? 'server.js' : ''));
  assert.equal(label({ pid: 4242, tid: 4242 }), 'pid 4242 server.js', "perf: the thread whose id is the process's");
  assert.equal(label({ pid: 4242, tid: 4250 }), 'pid 4242 thread 1 server.js', 'perf: a worker that recorded its OS thread');
  assert.equal(label({ pid: 4242, tid: 4251 }), 'pid 4242 tid 4251 server.js', "perf: one of V8's or libuv's threads");
  assert.equal(label({ pid: 4242, threadId: 0 }), 'pid 4242 server.js', 'prof and cpu-prof give the threadId');
  assert.equal(label({ pid: 4242, threadId: 3 }), 'pid 4242 thread 3 server.js');
  assert.equal(label({ pid: 77, tid: 77 }), undefined, 'a shell perf saw: perf names it');
  assert.equal(label({ pid: 77, threadId: 0 }), 'pid 77', 'a profile file of an unrecorded process: its pid');
});

test("run.json: a process's thread records are kept only when both numbers are integers", () => {
  const info = parseRunJson(
    JSON.stringify({
      processes: [
        { pid: 1, command: ['node'], threads: [{ threadId: 1, tid: 12 }, { threadId: '2', tid: 13 }, null, { tid: 5 }] },
        { pid: 2, command: ['node'], threads: 'x' },
      ],
    }),
  )!;
  assert.deepEqual(info.processes?.[0].threads, [{ threadId: 1, tid: 12 }]);
  assert.equal(info.processes?.[1].threads, undefined);
});

test("merge: a part with thread levels named as the run names them lends each to the merge; the others' stay one level", () => {
  const frame = { file: '/app/a.js', line: 1, column: 1, category: 'app' as const };
  // A prof log of process 10 and its worker, its threads already named by the run.
  const a = new ProfileBuilder('v8log', { durationMs: null });
  const main = a.frame({ name: 'mainWork', ...frame });
  const work = a.frame({ name: 'workerWork', ...frame });
  a.sample([main], 30, 0, 'pid 10 server.js');
  a.sample([work], 20, 0, 'pid 10 thread 1 server.js');
  a.threadInfo('pid 10 server.js', { pid: 10 });
  a.threadInfo('pid 10 thread 1 server.js', { pid: 10 });
  // Process 11, one thread.
  const b = new ProfileBuilder('v8log', { durationMs: null });
  b.sample([b.frame({ name: 'childWork', ...frame })], 5);
  const merged = mergeProfiles(
    [
      { profile: a.build(), thread: 'pid 10 server.js', pid: 10, ownLevels: true },
      { profile: b.build(), thread: 'pid 11 child.js', pid: 11 },
    ],
    { durationMs: null },
  );
  const levels = merged.tree.children(0).map((c) => merged.frames[merged.tree.frame[c]].name);
  assert.deepEqual(levels.sort(), ['thread pid 10 server.js', 'thread pid 10 thread 1 server.js', 'thread pid 11 child.js']);
  for (const c of merged.tree.children(0)) {
    const below = merged.tree.children(c).map((n) => merged.frames[merged.tree.frame[n]].name);
    assert.equal(below.length, 1, 'no level under a level');
    assert.match(below[0], /Work$/);
  }
  const rows = processRows(merged);
  assert.deepEqual(
    rows.filter((r) => r.thread).map((r) => [r.label, r.samples]),
    [
      ['pid 10 server.js', 30],
      ['pid 10 thread 1 server.js', 20],
    ],
    "process 10's threads are rows under it",
  );
  const worker = selectThreads(merged, ['pid 10 thread 1 server.js']);
  assert.equal(worker.tree.weight, 20);
  assert.equal(merged.threadLineHits, undefined, "a process's line heat is not kept per thread: the files in the tree tell");
});

test("processRows: a process's main thread first, then its busiest (perf's helper threads start before any worker)", () => {
  const b = new ProfileBuilder('perf', { durationMs: null });
  const f = b.frame({ name: 'work', file: '/app/a.js', line: 1, column: 1, category: 'app' });
  for (const [name, tid, n] of [
    ['pid 10 tid 11 server.js', 11, 1],
    ['pid 10 server.js', 10, 30],
    ['pid 10 tid 12 server.js', 12, 2],
    ['pid 10 thread 1 server.js', 15, 20],
  ] as const) {
    b.sample([f], n, 0, name);
    b.threadInfo(name, { pid: 10, tid });
  }
  assert.deepEqual(
    processRows(b.build())
      .filter((r) => r.thread)
      .map((r) => r.label),
    ['pid 10 server.js', 'pid 10 thread 1 server.js', 'pid 10 tid 12 server.js', 'pid 10 tid 11 server.js'],
  );
});

test('the differential flame graph: the same thread of two runs is one tower, whatever its pid', () => {
  const run = (pid: number, mainWeight: number) => {
    const b = new ProfileBuilder('v8log', { durationMs: null });
    const f = { file: '/app/a.js', line: 1, column: 1, category: 'app' as const };
    b.sample([b.frame({ name: 'mainWork', ...f })], mainWeight, 0, `pid ${pid} server.js`);
    b.sample([b.frame({ name: 'workerWork', ...f })], 10, 0, `pid ${pid} thread 1 server.js`);
    b.sample([b.frame({ name: 'gc', ...f })], 1, 0, `pid ${pid} tid ${pid + 5} server.js`);
    return b.build();
  };
  const d = diffTree(run(100, 30), run(200, 10));
  const levels = d.tree.children(0).map((c) => d.frames[d.tree.frame[c]].name);
  assert.deepEqual(levels.sort(), ['thread server.js', 'thread thread 1 server.js', 'thread tid … server.js']);
  const main = d.tree.children(0).find((c) => d.frames[d.tree.frame[c]].name === 'thread server.js')!;
  assert.ok(d.beforeTotal[main] > 0 && d.tree.total[main] > 0, 'before and after in one tower');
});
