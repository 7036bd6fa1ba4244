import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { addonBuildSkip, buildAddonWithDebugFile } from '../helpers/strippedAddon';

// prof mode names C++ by `nm` on the libraries the tick log lists. A stripped library (as distributions ship libc)
// has only its exported symbols there: its static functions keep library+offset until the system has the library's
// debug file, which prof mode reads as perf mode does (by build-id under the debug folders).
test(
  'prof mode: a stripped library keeps library+offset, and is named from its debug file',
  { skip: addonBuildSkip, timeout: 120_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'nf-prof-stripped-'));
    try {
      const buildId = buildAddonWithDebugFile(dir, 1200);

      const runs = join(dir, 'runs');
      const r = spawnSync(process.execPath, [cli, 'profile', '-m', 'prof', '--no-report', '--out', runs, '--', 'node', 'app.js'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      const run = join(runs, readdirSync(runs)[0]);
      const debugRoot = join(dir, 'debug');
      // The disk cache off: the library's table read with and without the debug file is asked for anew each time.
      const report = () =>
        spawnSync(process.execPath, [cli, 'report', run, '-f', 'json', '-n', '20'], {
          encoding: 'utf8',
          env: { ...process.env, NODE_FLAME_DEBUG_DIRS: debugRoot, DEBUGINFOD_URLS: '', NODE_FLAME_CACHE: 'off' },
        });
      type Json = { functions: { name: string; self: number; lib?: string }[]; findings: { rule: string; message: string }[] };
      const share = (j: Json, re: RegExp) => j.functions.filter((f) => re.test(f.name)).reduce((a, f) => a + f.self, 0);

      const before = report();
      assert.equal(before.status, 0, before.stderr);
      const b = JSON.parse(before.stdout) as Json;
      mkdirSync(join(debugRoot, '.build-id', buildId.slice(0, 2)), { recursive: true });
      copyFileSync(join(dir, 'libhot.debug'), join(debugRoot, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`));
      const after = report();
      assert.equal(after.status, 0, after.stderr);
      const a = JSON.parse(after.stdout) as Json;
      console.log(
        `[prof-stripped] without debug file: libhot.so+0x… self ${(100 * share(b, /^libhot\.so\+0x[0-9a-f]+$/)).toFixed(1)} %, ` +
          `hot_loop ${(100 * share(b, /^hot_loop$/)).toFixed(1)} %; with it: hot_loop ${(100 * share(a, /^hot_loop$/)).toFixed(1)} %, ` +
          `libhot.so+0x… ${(100 * share(a, /^libhot\.so\+0x/)).toFixed(1)} %`,
      );
      assert.ok(share(b, /^libhot\.so\+0x[0-9a-f]+$/) > 0.2, 'unnamed code keeps its library and offset');
      // The finding's advice is the one that helps here: the debug symbols (perf would not name it either).
      const native = (j: Json) => j.findings.find((f) => f.rule === 'native-library')?.message ?? '';
      assert.match(native(b), /libhot\.so.*debug symbols/);
      assert.doesNotMatch(native(a), /debug symbols/);
      assert.equal(share(b, /^hot_loop$/), 0);
      assert.ok(share(a, /^hot_loop$/) > 0.2, 'named from the debug file');
      assert.ok(share(a, /^libhot\.so\+0x/) < 0.02, 'no offset frame left in the hot function');
      assert.ok(
        a.functions.filter((f) => f.name === 'hot_loop').every((f) => /libhot\.so$/.test(f.lib ?? '')),
        'the function stays in its library',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
