// Live cpu-prof: the preload cuts its in-process profile into a chunk a second while the app runs; the run's
// reader shows them mid-run (the hot function is there), and the profile written at exit is their union.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { addChunkLines, liveChunkFileName } from '../../src/launch/run/cpuChunks';
import { CpuProfileMerger } from '../../src/launch/run/cpuProfileMerge';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { functionStats } from '../../src/core/model/views';
import type { Profile } from '../../src/core/model';
import { runTimeFactsOf } from '../../src/launch/run/runTimeline';
import { repoRoot } from '../helpers/paths';

const BUSY = `
function hotLoop() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.sqrt(i) * Math.sin(i); return x; }
function coolLoop() { let x = 0; for (let i = 0; i < 1e5; i++) x += i % 7; return x; }
const end = Date.now() + Number(process.argv[2]);
(function tick() { hotLoop(); coolLoop(); if (Date.now() < end) setImmediate(tick); })();
`;

/** Self share (%) of each function by name, the heaviest first. */
function topFunctions(p: Profile, n = 5): [string, number][] {
  const stats = functionStats(p.tree, p.frames.length);
  const all = p.tree.total[0] || 1;
  return stats
    .filter((s) => s.self > 0)
    .sort((a, b) => b.self - a.self)
    .slice(0, n)
    .map((s) => [p.frames[s.frame].name, (100 * s.self) / all]);
}

/** Share (%) of the samples with `name` on the stack. */
function totalShare(p: Profile, name: string): number {
  const stats = functionStats(p.tree, p.frames.length);
  const all = p.tree.total[0] || 1;
  return (100 * stats.filter((s) => p.frames[s.frame].name === name).reduce((n, s) => Math.max(n, s.total), 0)) / all;
}

test(
  'a live cpu-prof run: chunks while it runs, the hot function mid-run, the final profile the union of the chunks',
  { timeout: 60_000 },
  async (t) => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-live-'));
    t.after(() => rmSync(ws, { recursive: true, force: true }));
    const program = join(ws, 'busy.js');
    writeFileSync(program, BUSY);
    const runDir = createRunDir(join(ws, 'runs'), 'cpu-prof');
    const session = new ProfileSession({
      target: { program, args: ['4500'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
      mode: 'cpu-prof',
      runDir,
      preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
      live: true,
    });
    const done = session.run();
    await new Promise((r) => setTimeout(r, 2500));
    assert.ok(session.running, 'the app still runs');
    const chunkFile = readdirSync(runDir).find((f) => /^live-\d+\.jsonl$/.test(f));
    assert.ok(chunkFile, `chunks written while running: ${readdirSync(runDir).join(', ')}`);
    const midChunks = readFileSync(join(runDir, chunkFile), 'utf8').split('\n').filter(Boolean).length;
    assert.ok(midChunks >= 1, `${midChunks} chunks at 2.5 s`);
    session.markMoment('before the fix');
    const mid = await loadLiveRun(runDir);
    const midTop = topFunctions(mid.profile);
    assert.ok(session.running, 'the live read came while the app ran');
    assert.equal(midTop[0]?.[0], 'hotLoop', JSON.stringify(midTop));
    const midSamples = mid.profile.tree.total[0];
    // The mark is on the live run's Timeline already, and in run.json at the end.
    assert.deepEqual(
      mid.run.info.events?.filter((e) => e.kind === 'mark').map((e) => e.label),
      ['before the fix'],
    );
    const facts = await runTimeFactsOf(mid.profile, runDir, mid.run);
    assert.ok(
      facts?.markers.some((m) => m.kind === 'mark' && m.label === 'before the fix' && m.at > 1000),
      JSON.stringify(facts?.markers),
    );

    const result = await done;
    assert.equal(result.error, undefined, result.error?.message);
    assert.ok(result.info.events?.some((e) => e.kind === 'mark' && e.label === 'before the fix'));
    const last = await loadLiveRun(runDir);
    forgetLiveRun(runDir);
    const final = await loadRunProfile(runDir, { sourceMaps: false, allProcesses: true });
    // The union of the chunks, merged afresh from the file, is the final profile: the same samples.
    const union = new CpuProfileMerger();
    addChunkLines(union, readFileSync(join(runDir, liveChunkFileName(result.info.pid!)), 'utf8'));
    const finalFile = JSON.parse(readFileSync(result.profiles[0], 'utf8')) as { samples: number[] };
    assert.equal(finalFile.samples.length, union.sampleCount, 'the final .cpuprofile has exactly the chunks’ samples');
    assert.ok(union.chunks >= 4, `${union.chunks} chunks in 4.5 s`);
    assert.equal(final.tree.total[0], last.profile.tree.total[0], 'the last live view counts the final profile’s samples');
    assert.ok(midSamples < final.tree.total[0], 'the live view grew');
    const finalTop = topFunctions(final);
    const lastTop = new Map(topFunctions(last.profile, 20));
    for (const [name, share] of finalTop) {
      const live = lastTop.get(name) ?? 0;
      assert.ok(Math.abs(live - share) <= 2, `${name}: final ${share.toFixed(1)} %, live ${live.toFixed(1)} %`);
    }
    t.diagnostic(
      `chunks ${union.chunks}, samples ${union.sampleCount}; mid-run ${midChunks} chunks, top ${midTop[0][0]} ${midTop[0][1].toFixed(1)} %`,
    );
    t.diagnostic(`final top: ${finalTop.map(([n, s]) => `${n} ${s.toFixed(1)}`).join(', ')}`);
  },
);

test(
  'a live prof run: the tick logs read while they grow show the hot function; the final profile agrees',
  { timeout: 60_000 },
  async (t) => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-live-prof-'));
    t.after(() => rmSync(ws, { recursive: true, force: true }));
    const program = join(ws, 'busy.js');
    writeFileSync(program, BUSY);
    const runDir = createRunDir(join(ws, 'runs'), 'prof');
    const session = new ProfileSession({
      target: { program, args: ['4500'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
      mode: 'prof',
      runDir,
      preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
      live: true,
    });
    const done = session.run();
    await new Promise((r) => setTimeout(r, 2500));
    const mid = await loadLiveRun(runDir, { sourceMaps: false });
    assert.ok(session.running, 'read while the app ran');
    // prof names the C++ under it (V8's sin): hotLoop is on the stack of most ticks.
    const midHot = totalShare(mid.profile, 'hotLoop');
    assert.ok(midHot > 70, `hotLoop on ${midHot.toFixed(1)} % of the ticks so far`);
    const result = await done;
    assert.equal(result.error, undefined, result.error?.message);
    const last = await loadLiveRun(runDir, { sourceMaps: false });
    forgetLiveRun(runDir);
    const final = await loadRunProfile(runDir, { sourceMaps: false, allProcesses: true });
    assert.ok(mid.profile.tree.total[0] < final.tree.total[0], 'the live view grew');
    const lastTop = new Map(topFunctions(last.profile, 20));
    for (const [name, share] of topFunctions(final)) {
      const live = lastTop.get(name) ?? 0;
      assert.ok(Math.abs(live - share) <= 2, `${name}: final ${share.toFixed(1)} %, live ${live.toFixed(1)} %`);
    }
    t.diagnostic(`prof: mid-run ${mid.profile.tree.total[0]} ticks, hotLoop ${midHot.toFixed(1)} %; final ${final.tree.total[0]} ticks`);
  },
);
