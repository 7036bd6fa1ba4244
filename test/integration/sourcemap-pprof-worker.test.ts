// A pprof taken elsewhere (a server's paths) read through the import worker as the editor reads it (#25):
// the worker maps the paths to the workspace and then applies the bundle's map, once, in one pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { cpuProfile, CRUNCH_LINE, writeProject } from '../helpers/bundles';
import { loadProfileInWorker } from '../../src/core/workerClient';
import { functionStats } from '../../src/core/model';

const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');

test('pprof with server paths: through the worker with the path mapping, crunchNumbers is at the workspace src/hot.ts:6', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nf-pprof-worker-'));
  try {
    const server = join(root, 'srv', 'app');
    const ws = join(root, 'home', 'me', 'app');
    writeProject(server);
    // Not minified: pprof keeps lines, not columns, so a function is found by its line.
    await esbuild.build({
      entryPoints: [join(server, 'src', 'main.ts')],
      bundle: true,
      platform: 'node',
      sourcemap: true,
      outfile: join(server, 'dist', 'app.js'),
      logLevel: 'silent',
    });
    const prof = cpuProfile(join(server, 'dist', 'app.js'), join(root, 'prof'));
    const pprof = join(root, 'server.pb.gz');
    const r = spawnSync(process.execPath, [cli, 'report', prof, '--format', 'pprof', '--no-source-maps', '-o', pprof], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    // The workspace holds the same project; the server's copy is gone from this machine.
    cpSync(join(server, 'src'), join(ws, 'src'), { recursive: true });
    cpSync(join(server, 'dist'), join(ws, 'dist'), { recursive: true });
    rmSync(join(root, 'srv'), { recursive: true });

    const worker = join(repoRoot, 'dist', 'worker.js');
    const plain = await loadProfileInWorker(worker, pprof, {});
    const plainTop = plain.frames[functionStats(plain.tree, plain.frames.length).sort((a, b) => b.self - a.self)[0].frame];
    assert.equal(plainTop.file, join(server, 'dist', 'app.js'), 'without the mapping the server path stays');

    const p = await loadProfileInWorker(worker, pprof, {
      pathMapping: { rules: { [server]: ws }, roots: [ws] },
      pathMappingFormats: ['pprof'],
      sourceMapOptions: { workspaceFolder: ws },
    });
    const top = p.frames[functionStats(p.tree, p.frames.length).sort((a, b) => b.self - a.self)[0].frame];
    assert.deepEqual([top.name, top.file, top.line], ['crunchNumbers', join(ws, 'src', 'hot.ts'), CRUNCH_LINE]);
    assert.equal(top.generated?.file, join(ws, 'dist', 'app.js'));

    // pathMappingFormats keeps the mapping off other formats: the .cpuprofile's (deleted) paths stay.
    const cpu = await loadProfileInWorker(worker, prof, {
      pathMapping: { rules: { [server]: ws }, roots: [ws] },
      pathMappingFormats: ['pprof'],
    });
    assert.ok(cpu.frames.some((f) => f.file === join(server, 'dist', 'app.js')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
