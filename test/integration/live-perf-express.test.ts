// The guide's Express app profiled live in perf mode, as Profile Node App runs it: the /auth handler (an arrow function
// at app.js:23) is named in a live view while the app serves the load and in the final profile. A full e2e run once saw
// a sliced live perf run's handler drawn as `(anonymous) app.js:1` (the module's function), which kept the editor's
// perf runs from being live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { cleanupPerfMaps, preflightPerf } from '../../src/launch/perf';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { functionStats } from '../../src/core/model/views';
import type { Profile } from '../../src/core/model';
import { repoRoot } from '../helpers/paths';

/** Total share (%) of each app.js function (`name app.js:line`), most first. */
function appFunctions(p: Profile): [string, number][] {
  const all = p.tree.total[0] || 1;
  const out = new Map<string, number>();
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    if (!f.file || basename(f.file) !== 'app.js') continue;
    const key = `${f.name} app.js:${f.line}`;
    out.set(key, Math.max(out.get(key) ?? 0, (100 * s.total) / all));
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

const share = (fns: [string, number][], key: string) => fns.find(([k]) => k === key)?.[1] ?? 0;
const hasPbkdf2 = (p: Profile) => p.frames.some((f) => /pbkdf2Sync/.test(f.name));

test('a live perf run of the Express app names the /auth handler while it runs and at the end', { timeout: 120_000 }, async (t) => {
  const pre = await preflightPerf();
  if (!pre.ok) return t.skip(pre.message);
  const ws = mkdtempSync(join(tmpdir(), 'nf-live-perf-express-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  copyFileSync(join(repoRoot, 'examples', 'express-auth', 'app.js'), join(ws, 'app.js'));
  const port = 21000 + (process.pid % 20000);
  const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');
  const runDir = createRunDir(join(ws, 'runs'), 'perf');
  const session = new ProfileSession({
    target: {
      program: join(ws, 'app.js'),
      args: [],
      cwd: ws,
      env: { PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules') },
      nodeArgs: [],
      nodePath: process.execPath,
    },
    mode: 'perf',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    live: true,
    waitForPort: port,
    loadCommand:
      `curl -s "http://127.0.0.1:${port}/newUser?username=matt&password=password" >/dev/null && ` +
      `"${process.execPath}" "${autocannon}" -c 4 -d 8 "http://127.0.0.1:${port}/auth?username=matt&password=password" >/dev/null 2>&1`,
  });
  const done = session.run();
  while (!session.running) await new Promise((r) => setTimeout(r, 50));
  let mid: Profile | undefined;
  while (session.running) {
    const r = await loadLiveRun(runDir, { sourceMaps: false }).catch(() => undefined);
    // A view with the load in it: pbkdf2Sync and a couple of seconds of samples.
    if (r && session.running && hasPbkdf2(r.profile) && r.profile.meta.sampleCount! > 2000) mid = r.profile;
    await new Promise((r) => setTimeout(r, 500));
  }
  const result = await done;
  assert.equal(result.error, undefined, result.error?.message);
  forgetLiveRun(runDir);
  await cleanupPerfMaps(result.perfPids);
  const final = await loadRunProfile(runDir, { sourceMaps: false });
  assert.ok(mid, 'a live view with the load in it while the app ran');
  const HANDLER = '(anonymous) app.js:23';
  for (const [what, p] of [
    ['live view', mid],
    ['final profile', final],
  ] as const) {
    const fns = appFunctions(p);
    const handler = share(fns, HANDLER);
    // The handler is on the stack of most samples under load; the module's function ran at start-up only.
    assert.ok(handler > 20, `${what}: the /auth handler on ${handler.toFixed(1)} % of the samples: ${JSON.stringify(fns.slice(0, 6))}`);
    assert.ok(share(fns, '(anonymous) app.js:1') < handler / 4, `${what}: app.js:1 is not the handler: ${JSON.stringify(fns.slice(0, 6))}`);
    t.diagnostic(
      `${what} (${p.meta.sampleCount} samples): ${fns
        .slice(0, 4)
        .map(([k, v]) => `${k} ${v.toFixed(1)} %`)
        .join(', ')}`,
    );
  }
});
