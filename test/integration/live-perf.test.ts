// Live perf: `perf record --switch-output=1s` ends a slice a second, the launcher scripts each ended slice while the
// app runs; the live reader shows them mid-run and the final profile is exactly their union, read no slower than a
// plain perf run's perf.data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { cleanupPerfMaps, preflightPerf } from '../../src/launch/perf';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { functionStats } from '../../src/core/model/views';
import type { Profile } from '../../src/core/model';
import { repoRoot } from '../helpers/paths';

const BUSY = `
function hotLoop() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.sqrt(i) * Math.sin(i); return x; }
function coolLoop() { let x = 0; for (let i = 0; i < 1e5; i++) x += i % 7; return x; }
const end = Date.now() + Number(process.argv[2]);
(function tick() { hotLoop(); coolLoop(); if (Date.now() < end) setImmediate(tick); })();
`;

/** Share (%) of the weight with a function named `name` on the stack. */
function totalShare(p: Profile, name: string): number {
  const stats = functionStats(p.tree, p.frames.length);
  const all = p.tree.total[0] || 1;
  return (100 * stats.filter((s) => p.frames[s.frame].name.includes(name)).reduce((n, s) => Math.max(n, s.total), 0)) / all;
}

/** Samples in a `perf script` text: each sample's header is a line that is neither a frame (indented) nor a comment. */
function scriptSamples(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line && line[0] !== '#' && line[0] !== '\t' && line[0] !== ' ') n++;
  return n;
}

async function runPerf(ws: string, program: string, live: boolean, onRunning?: (runDir: string, s: ProfileSession) => Promise<void>) {
  const runDir = createRunDir(join(ws, live ? 'live' : 'plain'), 'perf');
  const session = new ProfileSession({
    target: { program, args: ['9000'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
    mode: 'perf',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    live,
  });
  const done = session.run();
  // When the app ended: from there to the profile read is what the user waits at exit.
  let exitedAt = 0;
  const watch = setInterval(() => {
    if (!exitedAt && !session.running && session.command) exitedAt = Date.now();
  }, 10);
  await onRunning?.(runDir, session);
  const result = await done;
  clearInterval(watch);
  assert.equal(result.error, undefined, result.error?.message);
  const t0 = Date.now();
  const final = await loadRunProfile(runDir, { sourceMaps: false, allProcesses: true });
  const readMs = Date.now() - t0;
  const exitMs = Date.now() - (exitedAt || t0);
  await cleanupPerfMaps(result.perfPids);
  return { runDir, result, final, readMs, exitMs };
}

test(
  'a live perf run: slices scripted while it runs, the hot function mid-run, the final profile their union',
  { timeout: 120_000 },
  async (t) => {
    const pre = await preflightPerf();
    if (!pre.ok) return t.skip(pre.message);
    const ws = mkdtempSync(join(tmpdir(), 'nf-live-perf-'));
    t.after(() => rmSync(ws, { recursive: true, force: true }));
    const program = join(ws, 'busy.js');
    writeFileSync(program, BUSY);
    let mid: Profile | undefined;
    let last: Profile | undefined;
    let reads = 0;
    const live = await runPerf(ws, program, true, async (runDir, session) => {
      // A slice ends each second once the last is scripted (~0.5 s of CPU; longer on a loaded machine); the first holds
      // node's start-up, so the mid-run view is taken with two.
      const scripted = () => readdirSync(runDir).filter((f) => /^perf-script-\d+\.txt$/.test(f)).length;
      while (!session.running) await new Promise((r) => setTimeout(r, 50));
      while (scripted() < 2 && session.running) await new Promise((r) => setTimeout(r, 100));
      assert.ok(scripted() >= 2, `slices scripted while running: ${readdirSync(runDir).join(', ')}`);
      last = mid = (await loadLiveRun(runDir, { sourceMaps: false })).profile;
      assert.ok(session.running, 'the live read came while the app ran');
      // The last live view while the app ran: read until it ends.
      const until = Date.now() + 30_000;
      while (session.running && Date.now() < until) {
        const r = await loadLiveRun(runDir, { sourceMaps: false, onlyNew: true }).catch(() => undefined);
        if (r && session.running) {
          last = r.profile;
          reads++;
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    });
    // The live view's last update: the live reader's read once the run ended (the last slice scripted at exit).
    const atEnd = (await loadLiveRun(live.runDir, { sourceMaps: false })).profile;
    forgetLiveRun(live.runDir);
    assert.ok(mid && last);
    const midHot = totalShare(mid, 'hotLoop');
    assert.ok(midHot > 40, `hotLoop on ${midHot.toFixed(1)} % of the samples mid-run`);

    const names = readdirSync(live.runDir);
    assert.deepEqual(
      names.filter((n) => /^perf\.data/.test(n)),
      [],
      'every slice was scripted (and only the scripts are kept)',
    );
    const scripts = names.filter((n) => /^perf-script-\d+\.txt$/.test(n)).sort();
    const perSlice = scripts.map((n) => scriptSamples(readFileSync(join(live.runDir, n), 'utf8')));
    // A slice a second, or longer while the last one is still being scripted (a loaded machine).
    assert.ok(scripts.length >= 3, `${scripts.length} slices in 9 s`);
    assert.deepEqual(live.result.info.profiles, scripts, 'run.json names the slices');
    const sum = perSlice.reduce((a, b) => a + b, 0);
    assert.equal(live.final.meta.sampleCount, sum, 'the final profile holds exactly the slices’ samples');
    assert.ok(mid.meta.sampleCount! < atEnd.meta.sampleCount!, 'the live view grew');
    const finalHot = totalShare(live.final, 'hotLoop');
    const lastHot = totalShare(last, 'hotLoop');
    const endHot = totalShare(atEnd, 'hotLoop');
    assert.equal(atEnd.meta.sampleCount, sum, 'the live view’s last update holds the final profile’s samples');
    assert.ok(Math.abs(finalHot - endHot) <= 2, `hotLoop: final ${finalHot.toFixed(1)} %, last live view ${endHot.toFixed(1)} %`);
    // While the app ran the view was a slice or two behind, and this program's share grows as it warms up: told, not
    // asserted.

    // The same program recorded without live: its perf.data read whole is today's final read.
    const plain = await runPerf(ws, program, false);
    assert.ok(readdirSync(plain.runDir).includes('perf.data'));
    const plainHot = totalShare(plain.final, 'hotLoop');
    // Two recordings of the same program (one beside perf script, on a shared machine): compared in the diagnostics only.
    // At exit a live run waits for one perf script (its last slice, beside the one in flight) and reads text; a plain
    // run for one perf script of the whole recording: about even for a run this short (measured 292–1193 ms live, 686–1248
    // ms plain at load 3–8), the live one ahead as runs grow. A backlog of slices (seconds) is what this catches.
    assert.ok(live.exitMs <= plain.exitMs * 1.5 + 250, `app exit → profile: live ${live.exitMs} ms, plain ${plain.exitMs} ms`);
    t.diagnostic(`slices ${scripts.length}: samples ${perSlice.join(' + ')} = ${sum}; live reads ${reads}`);
    t.diagnostic(
      `hotLoop: mid-run ${midHot.toFixed(1)} % (${mid.meta.sampleCount} samples), last view while running ${lastHot.toFixed(1)} % (${last.meta.sampleCount}), last live update ${endHot.toFixed(1)} %, final ${finalHot.toFixed(1)} %, plain run ${plainHot.toFixed(1)} %`,
    );
    t.diagnostic(
      `app exit → profile: live ${live.exitMs} ms (read ${live.readMs} ms, ${live.final.meta.sampleCount} samples), plain ${plain.exitMs} ms (read ${plain.readMs} ms, ${plain.final.meta.sampleCount} samples)`,
    );
  },
);

// A program that forks: perf writes a forked process's mappings only into the slice where it began, so the run stays in
// one slice from the fork on (perfSlices.ts); sliced on, the child's later samples were every frame [unknown] (seen:
// 3028 of 3609 samples unaccounted, childHot 9 %).
const FORKS = `
const { fork } = require('child_process');
if (process.argv[2] === 'child') {
  function childHot() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.sqrt(i); return x; }
  const end = Date.now() + 3500;
  while (Date.now() < end) childHot();
} else fork(__filename, ['child']);
`;

test('a live perf run of a program that forks names the code of the child in every second of it', { timeout: 90_000 }, async (t) => {
  const pre = await preflightPerf();
  if (!pre.ok) return t.skip(pre.message);
  const ws = mkdtempSync(join(tmpdir(), 'nf-live-perf-fork-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  writeFileSync(join(ws, 'parent.js'), FORKS);
  const runDir = createRunDir(join(ws, 'runs'), 'perf');
  const session = new ProfileSession({
    target: { program: join(ws, 'parent.js'), args: [], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
    mode: 'perf',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    live: true,
  });
  const result = await session.run();
  assert.equal(result.error, undefined, result.error?.message);
  await cleanupPerfMaps(result.perfPids);
  const final = await loadRunProfile(runDir, { sourceMaps: false, allProcesses: true });
  const share = totalShare(final, 'childHot');
  assert.ok(share > 60, `childHot ${share.toFixed(1)} % of the run (named in every slice)`);
  t.diagnostic(`childHot ${share.toFixed(1)} %; slices ${readdirSync(runDir).filter((f) => f.startsWith('perf-script-')).length}`);
});
