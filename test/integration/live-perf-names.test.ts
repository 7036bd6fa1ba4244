// A live perf view names JIT frames from the code that was at each address when the sample was taken, as the final
// profile does: perf alone names an address by the code /tmp/perf-<pid>.map lists there, stale once V8 reused it.
// A program that compiles and drops many functions (each its own sourceURL) makes V8 reuse its code addresses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { cleanupPerfMaps, preflightPerf } from '../../src/launch/perf';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadPerfScriptFiles } from '../../src/core/importers/perf';
import { savedJitMaps } from '../../src/core/importers/perf/jitMaps';
import { functionStats } from '../../src/core/model/views';
import type { Profile } from '../../src/core/model';
import { repoRoot } from '../helpers/paths';

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

/** Self weight by function (name, file, line). */
function selfByFunction(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    const key = `${f.name} ${f.file ? basename(f.file) : ''}:${f.line ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + s.self);
  }
  return out;
}

/** Keys whose weights differ between two views, with both weights. */
function differences(a: Map<string, number>, b: Map<string, number>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => (a.get(k) ?? 0) !== (b.get(k) ?? 0)).map((k) => `${k}: ${a.get(k) ?? 0} vs ${b.get(k) ?? 0}`);
}

const scriptsOf = (runDir: string): string[] =>
  readdirSync(runDir)
    .filter((f) => /^perf-script-\d+\.txt$/.test(f))
    .sort();

test('a live perf view names JIT frames by the code at their address then, as the final profile does', { timeout: 120_000 }, async (t) => {
  const pre = await preflightPerf();
  if (!pre.ok) return t.skip(pre.message);
  const ws = mkdtempSync(join(tmpdir(), 'nf-live-perf-names-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const program = join(ws, 'churn.js');
  writeFileSync(program, CHURN);
  const runDir = createRunDir(join(ws, 'runs'), 'perf');
  const session = new ProfileSession({
    target: { program, args: ['7000'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
    mode: 'perf',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    live: true,
  });
  const done = session.run();
  // Live views taken while the app ran, each with the slice scripts it read (the same list before and after the read).
  const views: { profile: Profile; scripts: string[] }[] = [];
  while (!session.running) await new Promise((r) => setTimeout(r, 50));
  while (session.running) {
    const before = scriptsOf(runDir);
    const r = await loadLiveRun(runDir, { sourceMaps: false }).catch(() => undefined);
    if (r && session.running && before.join() === scriptsOf(runDir).join()) views.push({ profile: r.profile, scripts: before });
    await new Promise((r) => setTimeout(r, 400));
  }
  const result = await done;
  assert.equal(result.error, undefined, result.error?.message);
  forgetLiveRun(runDir);
  await cleanupPerfMaps(result.perfPids);
  assert.ok(views.length, 'a live view while the app ran');
  // The finished run's folder holds the code records the final profile is named from: the same slices read with
  // them give the live view's names, sample for sample.
  const saved = await savedJitMaps(runDir);
  assert.ok(
    [...saved.values()].some((j) => j.timed),
    'the run folder holds a timed jitdump copy',
  );
  const last = views[views.length - 1];
  const paths = last.scripts.map((f) => join(runDir, f));
  const named = await loadPerfScriptFiles(paths, { sourceMaps: false }, saved);
  assert.equal(last.profile.meta.sampleCount, named.meta.sampleCount);
  assert.deepEqual(differences(selfByFunction(last.profile), selfByFunction(named)), [], 'live view vs its slices named at the end');
  // perf's own names for the same slices, told: how often the map's first entry for an address was stale here.
  const perfOwn = selfByFunction(await loadPerfScriptFiles(paths, { sourceMaps: false }, new Map()));
  const stale = differences(perfOwn, selfByFunction(named)).length;
  t.diagnostic(
    `${views.length} live views; the last: ${last.scripts.length} slices, ${last.profile.meta.sampleCount} samples; functions perf alone weighs differently: ${stale}`,
  );
});
