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
/** parent.js profiled for `ms` ms in `mode`: the run folder, and each hot stretch as its thread clocked it. */
async function profileTree(mode: string, ms: string, env: Record<string, string>): Promise<{ dir: string; clocked: Stretch[] }> {
  const times = join(work, `${mode}-${Object.keys(env).join('-')}-times.jsonl`);
  const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', ms], {
    cwd: app,
    env: { PT_TIMES: times, ...env },
    killAfterMs: 90_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const clocked = readFileSync(times, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Stretch);
  return { dir: runDirOf(r), clocked };
}

/**
 * Each function's samples on the run's axis (`t0`: its 0 in epoch ms) against the stretch its thread clocked itself:
 * logged, and (but in perf, whose clock is not the wall clock) never before the stretch began nor after it ended,
 * beyond the clocks' error; a sampler starved on a busy 2-core machine may leave a gap at either end, not at both.
 */
function checkClocked(mode: string, what: string, t0: number, seen: [string, { from: number; to: number }, Stretch][]): void {
  const errs = seen.map(([, s, clocked]) => [t0 + s.from - clocked.from, t0 + s.to - clocked.to]);
  const spans = seen.map(([name, s]) => `${name} ${s.from.toFixed(1)}–${s.to.toFixed(1)} ms`).join(', ');
  const names = seen.map(([name]) => `first/last ${name}`).join(', ');
  const off = errs
    .flat()
    .map((e) => e.toFixed(1))
    .join(' / ');
  console.log(`[integration] ${mode}${what}: ${spans}` + (mode === 'perf' ? '' : `; sample time − clocked time (${names}): ${off} ms`));
  if (mode === 'perf') return;
  for (const [first, last] of errs) {
    assert.ok(first > -3 && last < 3, `samples within the clocked stretch: ${first} / ${last} ms`);
    assert.ok(Math.min(first, -last) < 25, `one end of the stretch within 25 ms of its samples: ${first} / ${last} ms`);
  }
}

const share = (j: JsonReport, name: string) => j.functions.filter((f) => f.name === name).reduce((s, f) => s + f.self, 0);

const hasPerf = !perfCannotRecord;

for (const mode of ['cpu-prof', 'prof', ...(hasPerf ? ['perf'] : [])]) {
  test(`${mode}: a parent and its forked child on one time axis, whole and picked`, { timeout: 120_000 }, async () => {
    const { dir, clocked } = await profileTree(mode, '500', {});
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
    checkClocked(mode, '', t0, [
      ['parentHot', p, parentRun],
      ['childHot', c, childRun],
    ]);

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
    const { dir, clocked } = await profileTree(mode, '400', { PT_WORKER: '1' });
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
    checkClocked(mode, ', a child with a worker', t0, [
      ['childHot', c, childRun],
      ['workerHot', w, workerRun],
    ]);
    // The worker's stretch as a range of the run: its function is there, the parent's is not.
    const wj = report(dir, '--from', String(Math.floor(w.from)), '--to', String(Math.ceil(w.to + 1)));
    assert.ok(share(wj, 'workerHot') > 0.2, `workerHot ${share(wj, 'workerHot')} of its stretch`);
    assert.equal(share(wj, 'parentHot'), 0);
  });
}
