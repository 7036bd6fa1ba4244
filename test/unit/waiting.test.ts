import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Frame, type Profile } from '../../src/core/model';
import { waitingProcesses } from '../../src/core/model/waiting';
import { ViewerSession } from '../../src/core/viewer/viewerSession';

const frame = (name: string, category: Frame['category']): Frame => ({
  name,
  file: category === 'app' ? '/ws/app.js' : '',
  line: category === 'app' ? 3 : 0,
  column: 1,
  category,
});

/** A parent (pid 1) that started a child (pid 2): `parentIdle` of the parent's 100 samples idle, the child busy. */
function run(parentIdle: number, childIdle = 0): Profile {
  const b = new ProfileBuilder('cpuprofile', {
    durationMs: null,
    processes: [
      { pid: 1, ppid: null, command: 'npm start' },
      { pid: 2, ppid: 7, ancestors: [1], command: 'app.js' },
    ],
  });
  const idle = b.frame(frame('(idle)', 'idle'));
  const work = b.frame(frame('work', 'app'));
  b.sample([idle], parentIdle, undefined, 'pid 1 npm start');
  b.sample([work], 100 - parentIdle, undefined, 'pid 1 npm start');
  b.sample([idle], childIdle, undefined, 'pid 2 app.js');
  b.sample([work], 100 - childIdle, undefined, 'pid 2 app.js');
  b.threadInfo('pid 1 npm start', { pid: 1 });
  b.threadInfo('pid 2 app.js', { pid: 2 });
  return b.build();
}

test('waitingProcesses: a parent ≥ 90 % idle whose child did the work waited; a busy parent, or an idle child, did not', () => {
  assert.deepEqual(
    waitingProcesses(run(95)).map((w) => [w.pid, w.idle]),
    [[1, 0.95]],
  );
  assert.deepEqual(waitingProcesses(run(60)), [], 'a parent busy 40 % of its samples is part of the app');
  assert.deepEqual(waitingProcesses(run(95, 100)), [], 'everything idle: the idle finding speaks, nothing is left out');
});

test('the viewer starts without the processes that waited, one choice away', () => {
  const p = run(95);
  p.meta.processes![0].waited = { samples: 100, idle: 0.95 };
  const s = new ViewerSession(p, 'run', '/ws/.nodeflame/run');
  assert.deepEqual(
    s.threads,
    ['app.js'].map((c) => `pid 2 ${c}`),
  );
  assert.equal(s.pickedProfile().tree.weight, 100);
  s.setThreads(undefined);
  assert.equal(s.pickedProfile().tree.weight, 200, 'all processes when asked');
  const kept = new ViewerSession(p, 'run', '/ws/.nodeflame/run', undefined, undefined, ['pid 1 npm start']);
  assert.deepEqual(kept.threads, ['pid 1 npm start'], 'a saved choice wins over the default');
});

test("a live run's next read makes its own first choice; a choice the user made is kept", () => {
  // The first live read: only npm has written samples, so nothing is known to have waited yet.
  const early = new ProfileBuilder('cpuprofile', { durationMs: null, processes: [{ pid: 1, ppid: null, command: 'npm start' }] });
  early.sample([early.frame(frame('work', 'app'))], 10, undefined, 'pid 1 npm start');
  early.threadInfo('pid 1 npm start', { pid: 1 });
  const live = new ViewerSession(early.build(), 'run', '/ws/.nodeflame/run');
  const final = run(95);
  final.meta.processes![0].waited = { samples: 100, idle: 0.95 };
  const next = live.successor(final);
  assert.deepEqual(next.threads, ['pid 2 app.js'], 'the final profile starts without the waiting npm, the app shown');
  assert.equal(next.pickedProfile().tree.weight, 100);

  const picked = new ViewerSession(final, 'run', '/ws/.nodeflame/run');
  picked.setThreads(['pid 1 npm start']);
  assert.deepEqual(picked.successor(final).threads, ['pid 1 npm start'], "the user's choice is kept");
  picked.setThreads(undefined);
  assert.equal(picked.successor(final).threads, undefined, 'every process, asked for, stays every process');
});
