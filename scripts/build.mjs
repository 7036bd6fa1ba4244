// Bundles the extension host, CLI, webview and tests with esbuild; `--production` minifies, `--watch` rebuilds.
import * as esbuild from 'esbuild';
import { readdirSync, statSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const root = new URL('..', import.meta.url).pathname;

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', absWorkingDir: root };
const node = { ...common, platform: 'node', format: 'cjs', target: 'node20' };

const builds = [
  { ...node, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: { worker: 'src/core/worker.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { 'preload-stop': 'src/launch/preloadStop.ts' }, outdir: 'dist' },
  { ...common, platform: 'browser', format: 'iife', target: 'chrome120', entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist', loader: { '.css': 'css' } },
];
if (!production) {
  const tests = findTests(join(root, 'test'));
  if (tests.length) {
    builds.push({ ...node, sourcemap: true, minify: false, entryPoints: tests.map((t) => relative(root, t)), outdir: 'out', outbase: '.', external: ['vscode', 'playwright-core', 'ws'] });
  }
}

mkdirSync(join(root, 'dist'), { recursive: true });
// A production build writes no source maps: drop the ones an earlier dev build left, or the .vsix would ship them.
if (production) {
  for (const name of readdirSync(join(root, 'dist'))) if (name.endsWith('.map')) rmSync(join(root, 'dist', name));
}
copyFileSync(join(root, 'node_modules/@vscode/codicons/dist/codicon.css'), join(root, 'dist/codicon.css'));
copyFileSync(join(root, 'node_modules/@vscode/codicons/dist/codicon.ttf'), join(root, 'dist/codicon.ttf'));

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  const t0 = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`built ${builds.length} bundles in ${Date.now() - t0} ms${production ? ' (production)' : ''}`);
}
