// A live attach: the session cuts the attached process's profile into a piece a second over the inspector and
// appends each to the run folder as a live run's chunk; the live reader shows them while the target runs, and the
// profile saved at detach is the merge of the same pieces. The target counts its work per second of its main
// thread's CPU, so the cost of the cuts is read where it is paid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AttachSession, LIVE_ATTACH_CHUNK_MS, listTargets, liveAttach, makeRunDir, saveAttachRun } from '../../src/launch/inspector';
import { liveChunkFileName } from '../../src/launch/run/cpuChunks';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { liveRows } from '../../src/cli/liveTable';
import { freePort } from '../helpers/net';

// Short steps of a hot function, and work per second of the main thread's own CPU time (Linux: its task's stat),
// so the inspector's work on the main thread shows as less work per CPU second whatever else the machine runs.
// A few thousand compiled functions, as a real app has: a profiler that starts anew logs each of them again.
const TARGET = `'use strict';
const { readFileSync } = require('fs');
for (let i = 0; i < 5000; i++) new Function('x', 'return x + ' + i)(1);
function hotSpin() { let x = 0; for (let i = 0; i < 2e4; i++) x += Math.sqrt(i) * Math.sin(i); return x; }
function mainCpuMs() {
  try {
    const f = readFileSync('/proc/self/task/' + process.pid + '/stat', 'latin1');
    const v = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(v[11]) + Number(v[12])) * 10;
  } catch { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
}
let work = 0;
function step() {
  const end = performance.now() + 20;
  while (performance.now() < end) { hotSpin(); work++; }
  setImmediate(step);
}
setInterval(() => console.log('STAT ' + JSON.stringify({ t: performance.now(), cpuMs: mainCpuMs(), work })), 500);
step();
`;

interface Stat {
  t: number;
  cpuMs: number;
  work: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Main-thread CPU ms per second, and work per main-thread CPU second, of the target between two of its reports. */
function rate(a: Stat, b: Stat): { cpuMsPerS: number; workPerCpuS: number } {
  const s = (b.t - a.t) / 1000;
  return { cpuMsPerS: (b.cpuMs - a.cpuMs) / s, workPerCpuS: (1000 * (b.work - a.work)) / (b.cpuMs - a.cpuMs) };
}

test(
  'a live attach: chunks grow the run folder while the target runs; the final profile is their merge, same hot function and samples',
  { timeout: 90_000 },
  async (t) => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'nf-live-attach-')));
    const script = join(ws, 'target.js');
    writeFileSync(script, TARGET);
    const inspectPort = await freePort();
    const child = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, script], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(ws, { recursive: true, force: true });
    });
    let latest: Stat | undefined;
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const m = /^STAT (.*)$/.exec(out.slice(0, nl));
        if (m) latest = JSON.parse(m[1]) as Stat;
        out = out.slice(nl + 1);
      }
    });
    const stat = async (): Promise<Stat> => {
      const seen = latest;
      while (latest === seen) await sleep(50);
      return latest!;
    };
    await stat();
    const [target] = await listTargets({ host: '127.0.0.1', port: inspectPort });
    assert.ok(target, 'the target is listed at its inspector');

    // Attached without cuts (one piece at the end): the profiler's own cost, the baseline of the cuts'.
    const plain = await AttachSession.start(target, { chunkMs: 0, sourceMaps: false });
    await sleep(500);
    const p0 = await stat();
    await sleep(4000);
    const profiled = rate(p0, await stat());
    await plain.stop();

    // Attached live: a piece a second, appended to the run folder.
    const dir = await makeRunDir(join(ws, '.nodeflame'));
    const startedAt = Date.now();
    const la = liveAttach(dir, startedAt);
    const session = await AttachSession.start(target, { chunkMs: LIVE_ATTACH_CHUNK_MS, sourceMaps: false, onPart: la.onPart });
    assert.equal(session.pid, child.pid, 'the pid as the target says it (an address was given)');
    const file = join(dir, liveChunkFileName(child.pid!));
    const l0 = await stat();
    await sleep(2600);
    const sizeEarly = statSync(file).size;
    const linesEarly = readFileSync(file, 'utf8').split('\n').length - 1;
    la.mark('before the fix');
    const mid = await loadLiveRun(dir, { sourceMaps: false });
    assert.deepEqual(
      mid.run.info.events?.map((e) => [e.kind, e.label]),
      [['mark', 'before the fix']],
      'the mark is on the live Timeline',
    );
    const midRows = liveRows(mid.profile);
    await sleep(2600);
    const l1 = await stat();
    const live = rate(l0, l1);
    const sizeLate = statSync(file).size;
    const linesLate = readFileSync(file, 'utf8').split('\n').length - 1;
    assert.equal(child.exitCode, null, 'the target still runs');
    assert.ok(linesEarly >= 1, `a chunk was written within 2.6 s (${linesEarly})`);
    assert.ok(
      linesLate > linesEarly && sizeLate > sizeEarly,
      `the live file grows while the target runs: ${linesEarly} → ${linesLate} chunks`,
    );
    assert.equal(midRows[0]?.name, 'hotSpin', `mid-run the live view's hottest function: ${midRows[0]?.name}`);

    const result = await session.stop();
    assert.equal(result.lost, undefined);
    assert.ok(result.profile);
    // Every piece, the last one cut at detach included, went to the live file.
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    assert.equal(result.parts, lines, 'one chunk line per piece merged');

    // The live view at its last update: the file read whole, as the reader does.
    forgetLiveRun(dir);
    const last = await loadLiveRun(dir, { sourceMaps: false });
    forgetLiveRun(dir);
    const saved = await saveAttachRun(
      dir,
      { ...result, profile: result.profile },
      { target: { ...target, pid: child.pid }, stoppedBy: 'user', events: la.events },
    );
    const final = await loadRunProfile(dir, { sourceMaps: false });
    const runJson = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { events?: { kind: string; label?: string }[] };
    assert.deepEqual(
      runJson.events?.map((e) => e.label),
      ['before the fix'],
      'the mark is kept in run.json',
    );
    assert.equal(final.tree.total[0], last.profile.tree.total[0], "the final profile has the live view's samples");
    assert.equal(result.samples, last.profile.tree.total[0]);
    const liveTop = liveRows(last.profile, 3);
    const finalTop = liveRows(final, 3);
    assert.equal(finalTop[0].name, 'hotSpin');
    assert.equal(liveTop[0].name, finalTop[0].name, 'the same hot function');
    assert.ok(Math.abs(liveTop[0].self - finalTop[0].self) < 0.02, `its share within 2 points: ${liveTop[0].self} / ${finalTop[0].self}`);
    assert.ok(JSON.parse(readFileSync(saved.profilePath, 'utf8')).samples.length === result.samples);

    // What the live cuts cost: the target's main thread stops, serialises and restarts its profile in each, and
    // does less of the app's work per second of its CPU than while attached without cuts (noisy on a shared machine).
    const cuts = [...result.cutsMs].sort((x, y) => x - y);
    const f = (x: number) => x.toFixed(1);
    console.log(
      `[live attach] ${result.parts} chunks, ${result.samples} samples, hotSpin ${f(100 * finalTop[0].self)} % self; ` +
        `cuts (stop sent → start answered) median ${f(cuts[cuts.length >> 1])} ms, max ${f(cuts[cuts.length - 1])} ms; ` +
        `work per main-thread CPU s attached ${f(profiled.workPerCpuS)}, live ${f(live.workPerCpuS)} ` +
        `(${f(100 * (1 - live.workPerCpuS / profiled.workPerCpuS))} % less)`,
    );
  },
);
