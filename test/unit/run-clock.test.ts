// placeOnRunClock on a real cpu-prof run of a parent and its forked child (test/fixtures/process-tree-timeline,
// made by its make.sh): with the clock pair each process recorded, the axis is the wall clock from the launch;
// without it (a run from before), the two .cpuprofiles still share V8's monotonic clock; and the merged
// run read from the folder keeps the child's samples after its own start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeOnRunClock } from '../../src/launch/run/runClock';
import { readRunJsonSync } from '../../src/launch/run/runFolder';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { treeRunDir, treeRunParts } from '../helpers/runTimeline';

test('with the recorded clock pairs: epoch starts, the origin at the launch', async () => {
  const run = readRunJsonSync(treeRunDir)!;
  const ps = await treeRunParts();
  const origin = await placeOnRunClock(treeRunDir, run, ps);
  assert.equal(origin, Date.parse(run.startedAt!), 'the run starts at the launch');
  for (const p of ps) {
    const proc = run.processes!.find((x) => x.pid === p.pid)!;
    // The profile starts after the process did (its record is written by the preload, after V8's profiler began:
    // within a second of it either way) and after the launch.
    assert.ok(p.startMs! > origin!, `${p.thread} starts after the launch`);
    assert.ok(Math.abs(p.startMs! - Date.parse(proc.startedAt)) < 1000, `${p.thread}: ${p.startMs} vs ${proc.startedAt}`);
    // One pair (the first process's) for every process keeps their monotonic distances exact; each one's own pair
    // says the same to within a millisecond or two (a busy machine).
    const mono = p.profile.meta.startTime!;
    const first = run.processes![0].clock!;
    assert.ok(Math.abs(p.startMs! - (first.epochMs + mono - first.monoMs)) < 1e-6, 'epoch from the pair');
    assert.ok(Math.abs(p.startMs! - (proc.clock!.epochMs + mono - proc.clock!.monoMs)) < 2, `${p.thread}: its own pair agrees`);
  }
  assert.ok(ps[1].startMs! - ps[0].startMs! > 300, 'the child started after the parent was hot (~300 ms)');
});

test('without clock pairs (an older run): the .cpuprofiles share the monotonic clock', async () => {
  const run = readRunJsonSync(treeRunDir)!;
  const old = { ...run, processes: run.processes!.map(({ clock: _clock, ...p }) => p) };
  const ps = await treeRunParts();
  const origin = await placeOnRunClock(treeRunDir, old, ps);
  assert.equal(origin, Math.min(...ps.map((p) => p.profile.meta.startTime!)));
  for (const p of ps) assert.equal(p.startMs, p.profile.meta.startTime);
});

test('the run folder read as one: both processes on the launch axis; --pid keeps it', async () => {
  const run = readRunJsonSync(treeRunDir)!;
  const whole = await loadRunProfile(treeRunDir, { sourceMaps: false });
  assert.equal(whole.meta.startTime, Date.parse(run.startedAt!));
  const child = run.processes![1];
  const alone = await loadRunProfile(treeRunDir, { sourceMaps: false, pid: child.pid });
  assert.equal(alone.meta.startTime, whole.meta.startTime);
  const childStart = Date.parse(child.startedAt) - whole.meta.startTime!;
  assert.ok(
    alone.timeline!.times[0] > childStart - 200,
    `the child's first sample ${alone.timeline!.times[0]} ms, its start ${childStart} ms`,
  );
  // The same samples as the child's part of the whole run.
  const level = whole.frames.findIndex((f) => f.name.startsWith(`thread pid ${child.pid}`));
  const mine: number[] = [];
  for (let i = 0; i < whole.timeline!.nodes.length; i++) {
    let n = whole.timeline!.nodes[i];
    while (whole.tree.parent[n] > 0) n = whole.tree.parent[n];
    if (whole.tree.frame[n] === level) mine.push(whole.timeline!.times[i]);
  }
  assert.deepEqual([...alone.timeline!.times], mine);
});
