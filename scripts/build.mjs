// Bundles the extension host, CLI, webview and tests with esbuild; `--production` minifies, `--watch` rebuilds.
import * as esbuild from 'esbuild';
import { readdirSync, statSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

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

/**
 * VS Code reads and compiles dist/extension.js before activate() runs. Whatever the extension reaches
 * only through `import()` (importers, viewer panels, launcher, attach, comparison, hot spots) goes to
 * dist/features.js instead, read on first use: activation compiles ~25 KB, not ~250 KB.
 * A module bundled into both files would have two copies of its state, so the build stops unless it
 * is one of these stateless ones (@vscode/l10n is configured by each file).
 */
const SHARED_OK = new Set([
  'node_modules/@vscode/l10n/dist/main.js',
  'src/extension/viewer/coreSource.ts',
  'src/extension/viewer/mapSource.ts',
  'src/extension/viewer/options.ts',
  'src/launch/run/runsDir.ts',
  'src/core/model/units.ts',
  'src/core/settingLimits.ts',
]);

function lazySplit() {
  const targets = new Map();
  const plugin = {
    name: 'lazy-split',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (a) => {
        if (a.kind !== 'dynamic-import') return undefined;
        const r = await b.resolve(a.path, { kind: 'import-statement', resolveDir: a.resolveDir, importer: a.importer });
        if (r.errors.length || r.external) return undefined;
        const key = relative(root, r.path).split(sep).join('/');
        targets.set(key, r.path);
        return { path: key, namespace: 'lazy' };
      });
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, (a) => ({
        contents: `module.exports = require('./features.js')(${JSON.stringify(a.path)});`,
        loader: 'js',
      }));
    },
  };
  // Each module initializes when first asked for, as it would inside one bundle.
  const entry = () => `const vscode = require('vscode');
const l10n = require('@vscode/l10n');
if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
const modules = {
${[...targets].map(([k, p]) => `  ${JSON.stringify(k)}: () => require(${JSON.stringify(p)}),`).join('\n')}
};
module.exports = (key) => modules[key]();
`;
  return { plugin, entry };
}

async function buildExtension() {
  const split = lazySplit();
  const shell = await esbuild.build({
    ...node,
    entryPoints: { extension: 'src/extension/extension.ts' },
    outdir: 'dist',
    external: ['vscode', './features.js'],
    plugins: [split.plugin],
    metafile: true,
  });
  const features = await esbuild.build({
    ...node,
    stdin: { contents: split.entry(), resolveDir: root, sourcefile: 'features-entry.js', loader: 'js' },
    outfile: 'dist/features.js',
    external: ['vscode'],
    metafile: true,
  });
  // A worktree whose node_modules is a symlink sees packages by their real path (../../x/node_modules/...).
  const inputs = (r) =>
    Object.values(r.metafile.outputs).flatMap((o) =>
      Object.keys(o.inputs).map((f) => f.replace(/^(\.\.\/)+.*?node_modules\//, 'node_modules/')),
    );
  const inFeatures = new Set(inputs(features));
  const twice = inputs(shell).filter((f) => inFeatures.has(f) && !SHARED_OK.has(f));
  if (twice.length)
    throw new Error(
      `bundled into both dist/extension.js and dist/features.js, so their state would not be shared: ${twice.join(', ')}. Import them only from one side, or list them in SHARED_OK if they hold no state.`,
    );
}

const builds = [
  { ...node, entryPoints: { cli: 'src/cli/boot.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: { 'cli-main': 'src/cli/main.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { worker: 'src/launch/run/importWorker.ts' }, outdir: 'dist' },
  // Runs inside the profiled app, where its require hook is a frame of every module's stack: unmapped and
  // unminified, that frame reads `_compile …/dist/preload-stop.js`, which classifyJsFile files under Node.js.
  { ...node, sourcemap: false, minify: false, entryPoints: { 'preload-stop': 'src/launch/preload/stop.ts' }, outdir: 'dist' },
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    entryPoints: { webview: 'webview/main.ts', 'webview-offline': 'webview/offlinePage.ts' },
    outdir: 'dist',
    loader: { '.css': 'css' },
  },
];
if (!production) {
  const tests = findTests(join(root, 'test'));
  if (tests.length) {
    builds.push({
      ...node,
      sourcemap: true,
      minify: false,
      entryPoints: tests.map((t) => relative(root, t)),
      outdir: 'out',
      outbase: '.',
      external: ['vscode', 'playwright-core', 'ws'],
    });
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
  // One extension bundle while watching: there is no second build to keep in step with the first.
  builds.push({ ...node, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'] });
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  const t0 = Date.now();
  await Promise.all([buildExtension(), ...builds.map((b) => esbuild.build(b))]);
  console.log(`built ${builds.length + 2} bundles in ${Date.now() - t0} ms${production ? ' (production)' : ''}`);
}
