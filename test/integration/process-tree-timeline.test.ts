// A real process tree on the Timeline: `node-flame profile` (cpu-prof and prof) runs a parent hot in parentHot
// for ~0.5 s that forks a child hot in childHot later. The run folder read as one has a timeline on one axis:
// each function's samples fall where the process itself clocked its hot stretch, the child's after the
// parent's; `report <run folder> --from/--to` (and with `--pid`) keeps the right function; the picker's
// choice of the child keeps only its samples, with their times; the run's markers and both processes'
// event-loop tracks are on the same axis. With PT_WORKER the child also runs a worker thread hot in workerHot:
// its samples are on the same axis, where the worker clocked its stretch.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runDirOf } from '../helpers/cli';
import { cli, fixtures } from '../helpers/paths';
import { stretch } from '../helpers/runTimeline';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { runTimeFacts } from '../../src/launch/run/runTimeline';
import { tracksFor } from '../../src/core/viewer/answer';
import { processRows, selectThreads } from '../../src/core/model/processes';
import { applyTransforms } from '../../src/core/model/transforms';
import type { Profile } from '../../src/core/model';
import { perfCannotRecord } from '../helpers/perfProbe';

const app = join(fixtures, 'process-tree-timeline');
const work = mkdtempSync(join(tmpdir(), 'nf-tree-tl-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Stretch {
  fn: string;
  pid: number;
  from: number;
  to: number;
}

/** What the timeline's samples weigh together (perf weighs each by its period). */
function weightOf(p: Profile): number {
  const tl = p.timeline!;
  return tl.weights ? tl.weights.reduce((a, b) => a + b, 0) : tl.times.length;
}

interface JsonReport {
  startTime: number | null;
  endTime: number | null;
  functions: { name: string; self: number }[];
}

function report(dir: string, ...args: string[]): JsonReport {
  const r = spawnSync(process.execPath, [cli, 'report', dir, '--format', 'json', '--top', '1000', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_FLAME_LANG: 'en' },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}
const share = (j: JsonReport, name: string) => j.functions.filter((f) => f.name === name).reduce((s, f) => s + f.self, 0);

const hasPerf = !perfCannotRecord;

for (const mode of ['cpu-prof', 'prof', ...(hasPerf ? ['perf'] : [])]) {
  test(`${mode}: a parent and its forked child on one time axis, whole and picked`, { timeout: 120_000 }, async () => {
    const times = join(work, `${mode}-times.jsonl`);
    const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', '500'], {
      cwd: app,
      env: { PT_TIMES: times },
      killAfterMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const clocked = readFileSync(times, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Stretch);
    const parentRun = clocked.find((s) => s.fn === 'parentHot')!;
    const childRun = clocked.find((s) => s.fn === 'childHot')!;
    assert.ok(parentRun && childRun && parentRun.pid !== childRun.pid, JSON.stringify(clocked));

    const run = await loadRunProfile(dir, { sourceMaps: false });
    const tl = run.timeline;
    assert.ok(tl && tl.times.length > 0, 'the merged run has a timeline');
    for (let i = 1; i < tl.times.length; i++) assert.ok(tl.times[i - 1] <= tl.times[i], `times in order at ${i}`);
    assert.ok(Math.abs(weightOf(run) - run.tree.weight) < 1e-6 * run.tree.weight, 'every sample of every process is on the timeline');
    assert.ok(tl.times[0] >= 0);
    const p = stretch(run, 'parentHot');
    const c = stretch(run, 'childHot');
    const least = mode === 'perf' ? 20 : 100;
    assert.ok(p.n > least && c.n > least, JSON.stringify({ p, c }));
    assert.ok(
      c.from > p.to,
      `childHot ${c.from.toFixed(1)}–${c.to.toFixed(1)} ms after parentHot ${p.from.toFixed(1)}–${p.to.toFixed(1)} ms`,
    );
    // The axis is wall-clock time from the run's start: each stretch where the process clocked it itself. (perf.data
    // holds every process on perf's own clock, which is not the wall clock; its optimized JS is named apart.)
    const t0 = run.meta.startTime!;
    const err = (ms: number, epoch: number) => t0 + ms - epoch;
    const errs = [err(p.from, parentRun.from), err(p.to, parentRun.to), err(c.from, childRun.from), err(c.to, childRun.to)];
    console.log(
      `[integration] ${mode}: parentHot ${p.from.toFixed(1)}–${p.to.toFixed(1)} ms, childHot ${c.from.toFixed(1)}–${c.to.toFixed(1)} ms` +
        (mode === 'perf'
          ? ''
          : `; sample time − clocked time (first/last parentHot, first/last childHot): ${errs.map((e) => e.toFixed(1)).join(' / ')} ms`),
    );
    // A stretch's samples never come before it began nor after it ended (beyond the clocks' error); a sampler starved
    // on a busy 2-core machine may leave gaps at either end, but not at both.
    if (mode !== 'perf')
      for (const [first, last] of [
        [errs[0], errs[1]],
        [errs[2], errs[3]],
      ]) {
        assert.ok(first > -3 && last < 3, `samples within the clocked stretch: ${first} / ${last} ms`);
        assert.ok(Math.min(first, -last) < 25, `one end of the stretch within 25 ms of its samples: ${first} / ${last} ms`);
      }

    // The CLI on the run folder: each stretch alone.
    const childWindow = [String(Math.floor(c.from)), String(Math.ceil(c.to + 1))];
    const parentWindow = [String(Math.floor(p.from)), String(Math.ceil(p.to + 1))];
    const cj = report(dir, '--from', childWindow[0], '--to', childWindow[1]);
    assert.equal(cj.startTime, Number(childWindow[0]));
    assert.equal(cj.endTime, Number(childWindow[1]));
    assert.equal(share(cj, 'parentHot'), 0, 'no parentHot in the child stretch');
    assert.ok(share(cj, 'childHot') > 0.3, `childHot ${share(cj, 'childHot')} of the child stretch (the parent idles meanwhile)`);
    const pj = report(dir, '--from', parentWindow[0], '--to', parentWindow[1]);
    assert.equal(share(pj, 'childHot'), 0);
    assert.ok(share(pj, 'parentHot') > 0.5, `parentHot ${share(pj, 'parentHot')}`);
    const whole = report(dir);
    assert.equal(whole.startTime, 0);
    assert.ok(whole.endTime! >= c.to, `the JSON covers the whole run: ${whole.endTime}`);
    // --pid keeps the run's axis: the same window, the child alone.
    const pidJ = report(dir, '--pid', String(childRun.pid), '--from', childWindow[0], '--to', childWindow[1]);
    assert.ok(share(pidJ, 'childHot') > 0.7, `childHot ${share(pidJ, 'childHot')} of the child alone in its stretch`);
    assert.equal(report(dir, '--pid', String(childRun.pid), '--from', parentWindow[0], '--to', parentWindow[1]).functions.length, 0);
    assert.equal(share(report(dir, '--pid', String(parentRun.pid), '--from', childWindow[0], '--to', childWindow[1]), 'childHot'), 0);

    // The viewer's picker: the child alone, only its samples, at the same times.
    const row = processRows(run).find((x) => x.pid === childRun.pid && !x.thread)!;
    assert.ok(row, JSON.stringify(processRows(run)));
    const alone = selectThreads(run, row.threads);
    assert.ok(
      alone.timeline && Math.abs(weightOf(alone) - alone.tree.weight) < 1e-6 * alone.tree.weight,
      'the picked process has its timeline',
    );
    assert.equal(stretch(alone, 'parentHot').n, 0);
    assert.deepEqual(stretch(alone, 'childHot'), c);
    assert.ok(alone.timeline.times[0] > p.to - 100, `the child's first sample (${alone.timeline.times[0]} ms) comes late in the run`);
    const ranged = applyTransforms(alone, [], { from: c.from, to: c.to + 1 });
    assert.equal(stretch(ranged, 'childHot').n, c.n);

    if (mode === 'perf') return;
    // Markers and both processes' event-loop tracks on the run's axis: the launch at 0.
    const facts = (await runTimeFacts(dir, { startEpochMs: t0, pids: [parentRun.pid, childRun.pid] }))!;
    const start = facts.markers.find((m) => m.kind === 'start');
    assert.ok(start && Math.abs(start.at) < 1, JSON.stringify(facts.markers));
    const tracks = facts.tracks.filter((t) => t.kind === 'loopDelay');
    assert.deepEqual(tracks.map((t) => t.pid).sort(), [parentRun.pid, childRun.pid].sort());
    const childTrack = tracks.find((t) => t.pid === childRun.pid)!;
    assert.ok(childTrack.times[0] > p.to - 100, `the child's first reading at ${childTrack.times[0]} ms`);
    // What the Timeline draws follows the picker: both processes' delays and no heap; the child alone, its delay and heap.
    assert.deepEqual(
      tracksFor(facts.tracks, run)
        .map((t) => `${t.kind} ${t.pid}`)
        .sort(),
      [`loopDelay ${childRun.pid}`, `loopDelay ${parentRun.pid}`].sort(),
    );
    const picked = { tracks: tracksFor(facts.tracks, alone) };
    assert.deepEqual(
      picked.tracks.map((t) => `${t.kind} ${t.pid}`),
      [`loopDelay ${childRun.pid}`, `heapUsed ${childRun.pid}`],
    );
    assert.deepEqual(picked.tracks[0].times, childTrack.times);
  });

  test(`${mode}: a worker thread's samples on the run's axis too (a process of several threads)`, { timeout: 120_000 }, async () => {
    const times = join(work, `${mode}-worker-times.jsonl`);
    const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', '400'], {
      cwd: app,
      env: { PT_TIMES: times, PT_WORKER: '1' },
      killAfterMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const clocked = readFileSync(times, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Stretch);
    const childRun = clocked.find((s) => s.fn === 'childHot')!;
    const workerRun = clocked.find((s) => s.fn === 'workerHot')!;
    assert.ok(childRun && workerRun && workerRun.pid === childRun.pid, JSON.stringify(clocked));

    const run = await loadRunProfile(dir, { sourceMaps: false });
    // prof read a process of several isolates' logs without times: its samples were left out of the Timeline and ranges.
    assert.ok(!run.warnings.some((w) => /no sample times/.test(w)), run.warnings.join('\n'));
    const tl = run.timeline!;
    assert.ok(tl && tl.times.length > 0, 'the merged run has a timeline');
    for (let i = 1; i < tl.times.length; i++) assert.ok(tl.times[i - 1] <= tl.times[i], `times in order at ${i}`);
    assert.ok(Math.abs(weightOf(run) - run.tree.weight) < 1e-6 * run.tree.weight, 'every sample of every thread is on the timeline');
    const c = stretch(run, 'childHot');
    const w = stretch(run, 'workerHot');
    const least = mode === 'perf' ? 20 : 100;
    assert.ok(c.n > least && w.n > least, JSON.stringify({ c, w }));
    const t0 = run.meta.startTime!;
    const errs = [t0 + w.from - workerRun.from, t0 + w.to - workerRun.to, t0 + c.from - childRun.from, t0 + c.to - childRun.to];
    console.log(
      `[integration] ${mode}, a child with a worker: childHot ${c.from.toFixed(1)}–${c.to.toFixed(1)} ms, workerHot ${w.from.toFixed(1)}–${w.to.toFixed(1)} ms` +
        (mode === 'perf'
          ? ''
          : `; sample time − clocked time (first/last workerHot, first/last childHot): ${errs.map((e) => e.toFixed(1)).join(' / ')} ms`),
    );
    if (mode !== 'perf')
      for (const [first, last] of [
        [errs[0], errs[1]],
        [errs[2], errs[3]],
      ]) {
        assert.ok(first > -3 && last < 3, `samples within the clocked stretch: ${first} / ${last} ms`);
        assert.ok(Math.min(first, -last) < 25, `one end of the stretch within 25 ms of its samples: ${first} / ${last} ms`);
      }
    // The worker's stretch as a range of the run: its function is there, the parent's is not.
    const wj = report(dir, '--from', String(Math.floor(w.from)), '--to', String(Math.ceil(w.to + 1)));
    assert.ok(share(wj, 'workerHot') > 0.2, `workerHot ${share(wj, 'workerHot')} of its stretch`);
    assert.equal(share(wj, 'parentHot'), 0);
  });
}
