import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { buildAddonWithDebugFile, strippedAddonSkip } from '../helpers/strippedAddon';

// A native library stripped as distributions ship them: perf leaves its static functions unnamed. They must keep
// their library and offset, and be named by function once the library's debug file is where the system keeps them.
const skip = strippedAddonSkip;

test('a stripped library keeps library+offset, and its functions are named from a debug file', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-stripped-'));
  try {
    const buildId = buildAddonWithDebugFile(dir, 1200);

    const runs = join(dir, 'runs');
    const r = spawnSync(process.execPath, [cli, 'profile', '-m', 'perf', '--out', runs, '--', 'node', 'app.js'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const run = join(runs, readdirSync(runs)[0]);
    const debugRoot = join(dir, 'debug');
    const report = (debugDirs: string, env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [cli, 'report', run, '-f', 'json', '-n', '20'], {
        encoding: 'utf8',
        env: { ...process.env, NODE_FLAME_DEBUG_DIRS: debugDirs, DEBUGINFOD_URLS: '', DEBUGINFOD_CACHE_PATH: join(dir, 'dcache'), ...env },
      });
    type Json = { functions: { name: string; self: number }[]; findings: { rule: string; message: string }[] };
    const share = (j: Json, re: RegExp) => j.functions.filter((f) => re.test(f.name)).reduce((a, f) => a + f.self, 0);

    // The `profile` output itself says which library lacks symbols, and the finding's advice fits a perf run.
    assert.match(r.stderr, /warning: native code without symbols is shown as library\+offset \([^)]*libhot\.so/);
    const before = report(debugRoot);
    assert.equal(before.status, 0, before.stderr);
    const b = JSON.parse(before.stdout) as Json;
    const native = b.findings.find((f) => f.rule === 'native-library');
    mkdirSync(join(debugRoot, '.build-id', buildId.slice(0, 2)), { recursive: true });
    copyFileSync(join(dir, 'libhot.debug'), join(debugRoot, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`));
    const after = report(debugRoot);
    assert.equal(after.status, 0, after.stderr);
    const a = JSON.parse(after.stdout) as Json;
    console.log(
      `[stripped] without debug file: libhot.so+0x… self ${(100 * share(b, /^libhot\.so\+0x[0-9a-f]+$/)).toFixed(1)} %, ` +
        `hot_loop ${(100 * share(b, /^hot_loop$/)).toFixed(1)} %; with it: hot_loop ${(100 * share(a, /^hot_loop$/)).toFixed(1)} %, ` +
        `libhot.so+0x… ${(100 * share(a, /^libhot\.so\+0x/)).toFixed(1)} %; finding: ${native?.message}`,
    );
    assert.ok(share(b, /^libhot\.so\+0x[0-9a-f]+$/) > 0.2, 'unnamed code keeps its library and offset');
    assert.ok(!b.functions.some((f) => f.name === '[unknown]' && f.self > 0.05), 'no big [unknown] frame');
    assert.equal(share(b, /^hot_loop$/), 0);
    assert.match(native?.message ?? '', /debug symbols/);
    assert.doesNotMatch(native?.message ?? '', /profile with perf/);
    assert.ok(share(a, /^hot_loop$/) > 0.2, 'named from the debug file');
    assert.ok(share(a, /^libhot\.so\+0x/) < 0.02, 'no offset frame left in the hot function');

    // The same debug file served by a local debuginfod (Debian's `debuginfod` package), with no debug folder.
    if (spawnSync('debuginfod', ['--version']).status !== 0) return console.log('[stripped] debuginfod not installed: its case skipped');
    const served = join(dir, 'served');
    mkdirSync(served);
    copyFileSync(join(dir, 'libhot.debug'), join(served, 'libhot.debug'));
    const port = 20000 + (process.pid % 20000);
    const server = spawn('debuginfod', ['-F', served, '-p', String(port), '-d', join(dir, 'debuginfod.sqlite')], { stdio: 'ignore' });
    try {
      const url = `http://127.0.0.1:${port}`;
      const env = { DEBUGINFOD_URLS: url, DEBUGINFOD_CACHE_PATH: join(dir, 'dcache') };
      // Indexed within a few seconds of start.
      for (let i = 0; i < 60; i++) {
        if (spawnSync('debuginfod-find', ['debuginfo', buildId], { env: { ...process.env, ...env } }).status === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      rmSync(join(dir, 'dcache'), { recursive: true, force: true });
      const viaServer = report(join(dir, 'no-debug-here'), env);
      assert.equal(viaServer.status, 0, viaServer.stderr);
      const d = JSON.parse(viaServer.stdout) as Json;
      console.log(`[stripped] from debuginfod: hot_loop ${(100 * share(d, /^hot_loop$/)).toFixed(1)} %`);
      assert.ok(share(d, /^hot_loop$/) > 0.2, 'named from the debuginfod server');
    } finally {
      server.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
