// A live perf view names JIT frames from the code that was at each address when the sample was taken, as the final
// profile does: perf alone names an address by the code /tmp/perf-<pid>.map lists there, stale once V8 reused it.
// A program that compiles and drops many functions (each its own sourceURL) makes V8 reuse its code addresses, and
// compiles new code all along: one perf script for the run knows none of it past its first look at the map.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { cleanupPerfMaps, preflightPerf } from '../../src/launch/perf';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadPerfScriptFiles } from '../../src/core/importers/perf';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { savedJitMaps } from '../../src/core/importers/perf/jitMaps';
import { functionStats } from '../../src/core/model/views';
import type { Profile } from '../../src/core/model';
import { repoRoot } from '../helpers/paths';
import { differences, selfByFunction } from '../helpers/profileCanon';

const CHURN = `
function steady() { let x = 0; for (let i = 0; i < 2e5; i++) x += Math.sqrt(i); return x; }
const end = Date.now() + Number(process.argv[2]);
let n = 0;
(function tick() {
  for (let k = 0; k < 20; k++) {
    // Each its own file name, so a stale name is a visibly different function.
    const f = new Function('a', \`let s = \${n}; for (let i = 0; i < a; i++) s += i % \${k + 3}; return s;\\n//# sourceURL=gen\${n++}.js\`);
    for (let j = 0; j < 200; j++) f(500);
  }
  steady();
  if (Date.now() < end) setImmediate(tick);
})();
`;

/** Share (%) of the samples whose leaf is unnamed: `[unknown]` (what perf's map and the code records both left), or ambiguous. */
function unnamedShare(p: Profile): number {
  let n = 0;
  for (const s of functionStats(p.tree, p.frames.length))
    if (/^\[(unknown|ambiguous JIT code)\]$/.test(p.frames[s.frame].name)) n += s.self;
  return (100 * n) / (p.tree.total[0] || 1);
}

async function record(ws: string, program: string, live: boolean, views: Profile[]) {
  const runDir = createRunDir(join(ws, live ? 'live' : 'plain'), 'perf');
  const session = new ProfileSession({
    target: { program, args: ['7000'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
    mode: 'perf',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    live,
  });
  const done = session.run();
  while (!session.running) await new Promise((r) => setTimeout(r, 50));
  while (live && session.running) {
    const r = await loadLiveRun(runDir, { sourceMaps: false }).catch(() => undefined);
    if (r && session.running) views.push(r.profile);
    await new Promise((r) => setTimeout(r, 400));
  }
  const result = await done;
  assert.equal(result.error, undefined, result.error?.message);
  // The live view's last update (the run ended): read before the maps in /tmp go.
  const atEnd = live ? (await loadLiveRun(runDir, { sourceMaps: false })).profile : undefined;
  forgetLiveRun(runDir);
  await cleanupPerfMaps(result.perfPids);
  const final = await loadRunProfile(runDir, { sourceMaps: false });
  return { runDir, atEnd, final };
}

test('a live perf view names JIT frames by the code at their address then, as the final profile does', { timeout: 120_000 }, async (t) => {
  const pre = await preflightPerf();
  if (!pre.ok) return t.skip(pre.message);
  const ws = mkdtempSync(join(tmpdir(), 'nf-live-perf-names-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const program = join(ws, 'churn.js');
  writeFileSync(program, CHURN);
  const views: Profile[] = [];
  const live = await record(ws, program, true, views);
  assert.ok(views.length, 'a live view while the app ran');
  // The finished run's folder holds the code records the final profile is named from: the script read with them gives
  // the live view's names, sample for sample.
  const saved = await savedJitMaps(live.runDir);
  assert.ok(
    [...saved.values()].some((j) => j.timed),
    'the run folder holds a timed jitdump copy',
  );
  const script = readdirSync(live.runDir).filter((f) => /^perf-script-\d+\.txt$/.test(f));
  assert.equal(script.length, 1);
  const named = await loadPerfScriptFiles([join(live.runDir, script[0])], { sourceMaps: false }, saved);
  assert.equal(live.atEnd!.meta.sampleCount, named.meta.sampleCount);
  assert.deepEqual(differences(selfByFunction(live.atEnd!), selfByFunction(named)), [], 'live view vs its script named at the end');
  assert.deepEqual(differences(selfByFunction(live.final), selfByFunction(named)), [], 'the final profile vs the same');
  // perf script loads /tmp/perf-<pid>.map once per process: in one perf script for the whole run, code compiled after
  // that is [unknown] to perf. Named from the code records, live and at the end, as well as a plain run's.
  const last = views[views.length - 1];
  const plain = await record(ws, program, false, []);
  const perfOwn = await loadPerfScriptFiles([join(live.runDir, script[0])], { sourceMaps: false }, new Map());
  const shares = {
    lastLiveView: unnamedShare(last),
    liveFinal: unnamedShare(live.final),
    plainFinal: unnamedShare(plain.final),
    perfAlone: unnamedShare(perfOwn),
  };
  assert.ok(shares.lastLiveView <= shares.plainFinal + 1, `unnamed JIT share: ${JSON.stringify(shares)}`);
  assert.ok(shares.liveFinal <= shares.plainFinal + 0.5, `unnamed JIT share: ${JSON.stringify(shares)}`);
  const stale = differences(selfByFunction(perfOwn), selfByFunction(named)).length;
  t.diagnostic(
    `${views.length} live views; the last: ${last.meta.sampleCount} samples; unnamed leaf share (%) ${Object.entries(shares)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}; functions perf alone weighs differently: ${stale}`,
  );
});
