// The CLI as a user installs it: `npm pack`, then `npm install -g` of the tarball (into a temporary prefix),
// then the `node-flame` command on PATH. Uses the dist/ that `npm test` built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, fixtures, repoRoot } from '../helpers/paths';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

test(
  'npm pack + npm install -g gives a working node-flame command (version, report, html export, profile, translations)',
  { timeout: 240_000 },
  () => {
    assert.ok(readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n'), 'dist/cli.js starts with a shebang');
    const dir = mkdtempSync(join(tmpdir(), 'nf-tarball-'));
    try {
      const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], repoRoot)) as {
        filename: string;
        size: number;
        files: { path: string }[];
      }[];
      const files = packed[0].files.map((f) => f.path);
      console.log(`[tarball] ${packed[0].filename}: ${files.length} files, ${(packed[0].size / 1024).toFixed(0)} KiB`);
      for (const f of [
        'dist/cli.js',
        'dist/preload-stop.js',
        'dist/webview.js',
        'dist/worker.js',
        'media/viewer.css',
        'l10n/bundle.l10n.ko.json',
        'package.json',
      ])
        assert.ok(files.includes(f), `the tarball holds ${f}`);
      assert.deepEqual(
        files.filter((f) => /^(src|test|webview|scripts|bench|examples|node_modules)\/|\.map$/.test(f)),
        [],
        'no sources, tests, tools or source maps in the tarball',
      );

      // --offline: the bundles need no package from the registry, so none is fetched.
      const prefix = join(dir, 'prefix');
      npm(['install', '-g', '--offline', '--prefix', prefix, join(dir, packed[0].filename)], dir);
      const installed = join(prefix, 'lib', 'node_modules', pkg.name);
      assert.ok(!existsSync(join(installed, 'node_modules')), 'installed without dependencies');
      const bin = join(prefix, 'bin', 'node-flame');
      // Run as a command (through the shebang), from a folder outside the repository, with only the prefix on PATH besides node.
      const env = {
        ...process.env,
        PATH: `${join(prefix, 'bin')}:${join(process.execPath, '..')}:/usr/bin:/bin`,
        NODE_FLAME_LANG: 'en',
        NODE_PATH: '',
      };
      const nf = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
        spawnSync('node-flame', args, { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
      assert.ok(existsSync(bin));

      const v = nf(['--version']);
      assert.equal(v.status, 0, v.stderr);
      assert.equal(v.stdout, `${pkg.version}\n`);

      const r = nf(['report', join(fixtures, 'v8log', 'prof.log'), '--format', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout) as { format: string; samples: number; functions: { name: string }[] };
      assert.equal(summary.format, 'v8log');
      assert.equal(summary.samples, 265);
      assert.equal(summary.functions[0].name, 'spin');

      // The html export embeds the viewer from the installed dist/.
      const html = join(dir, 'prof.html');
      const h = nf(['report', join(fixtures, 'v8log', 'prof.log'), '--format', 'html', '-o', html]);
      assert.equal(h.status, 0, h.stderr);
      assert.match(readFileSync(html, 'utf8'), /"name":"spin"/);

      // profile runs an app with the preload script from the installed dist/.
      writeFileSync(
        join(dir, 'busy.js'),
        'function busy() { const end = Date.now() + 400; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\nbusy();\n',
      );
      const p = nf(['profile', '--mode', 'cpu-prof', '--out', join(dir, 'runs'), '--', 'node', 'busy.js']);
      assert.equal(p.status, 0, p.stderr);
      assert.match(p.stdout, /busy/);
      assert.equal(readdirSync(join(dir, 'runs')).length, 1);

      // The translations ship with it.
      const ko = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.ko.json'), 'utf8')) as Record<string, string>;
      const help = nf(['report', '--help'], { NODE_FLAME_LANG: 'ko' });
      assert.equal(help.status, 0, help.stderr);
      assert.ok(help.stdout.includes(ko['Options:']), help.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
