// Bundles as real builds make them (#25): each bundler from npm builds the same TypeScript program, node
// profiles it for real, and the CLI's JSON report names the hot function as written, at its .ts file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { applySourceMaps, SourceMapCache } from '../../src/core/sourcemaps';
import { ProfileBuilder } from '../../src/core/model';
import {
  ARROW_LINE,
  buildEsbuild,
  buildRollup,
  buildTsc,
  buildWebpack,
  cpuProfile,
  CRUNCH_LINE,
  WARMUP_LINE,
  writeProject,
} from '../helpers/bundles';
import type { JsonReport } from '../../src/core/exporters/json';

const dir = mkdtempSync(join(tmpdir(), 'nf-bundlers-'));
writeProject(dir);
test.after(() => rmSync(dir, { recursive: true, force: true }));

function report(prof: string, cwd = dir, ...args: string[]): JsonReport {
  const r = spawnSync(process.execPath, [cli, 'report', prof, '--format', 'json', '--top', '100000', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}

function assertHot(j: JsonReport, what: string): void {
  const top = j.functions[0];
  assert.equal(top.name, 'crunchNumbers', `${what}: top function ${JSON.stringify(top)}`);
  assert.equal(top.file, join(dir, 'src', 'hot.ts'), what);
  assert.equal(top.line, CRUNCH_LINE, what);
  assert.ok(top.self > 0.5, `${what}: self ${top.self}`);
  // A callback whose name the minifier dropped (V8 calls it anonymous) is named from its original text.
  const warm = j.functions.find((f) => f.name === 'warmUp');
  assert.ok(warm, `${what}: warmUp among ${j.functions.map((f) => `${f.name}@${f.file}:${f.line}`).join(', ')}`);
  assert.deepEqual([warm.file, warm.line], [join(dir, 'src', 'main.ts'), WARMUP_LINE], what);
}

test('esbuild --bundle --minify: the minified function (r) and arrow (t) by their names in src/hot.ts', async () => {
  const js = await buildEsbuild(dir);
  assert.match(readFileSync(js, 'utf8'), /function \w\(\w\)\{/, 'the bundle is minified');
  assert.doesNotMatch(readFileSync(js, 'utf8'), /crunchNumbers/);
  const j = report(cpuProfile(js, join(dir, 'prof-esbuild')));
  assertHot(j, 'esbuild');
  const arrow = j.functions.find((f) => f.name === 'spinArrow');
  assert.ok(arrow, `spinArrow among ${j.functions.map((f) => f.name).join(', ')}`);
  assert.deepEqual([arrow.file, arrow.line], [join(dir, 'src', 'hot.ts'), ARROW_LINE]);
});

test('webpack (production, ts-loader): webpack://flame-fixture/./src/hot.ts through the default path overrides; text report alike', async () => {
  const js = await buildWebpack(dir);
  const map = JSON.parse(readFileSync(js + '.map', 'utf8')) as { sources: string[] };
  assert.ok(map.sources.includes('webpack://flame-fixture/./src/hot.ts'), map.sources.join(', '));
  const prof = cpuProfile(js, join(dir, 'prof-webpack'));
  assertHot(report(prof), 'webpack');
  // webpack's own wrapper (the script and its IIFE, before the first mapped column) is no function of the
  // sources: it keeps its place in the bundle instead of taking the name of the first function after it.
  const folded = spawnSync(process.execPath, [cli, 'report', prof, '--format', 'folded'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  const crunchStacks = folded.stdout.split('\n').filter((l) => l.includes('crunchNumbers'));
  assert.ok(crunchStacks.length > 0, folded.stderr);
  for (const l of crunchStacks) assert.equal(l.split(';').filter((f) => f.startsWith('crunchNumbers')).length, 1, l.slice(0, 300));
  const text = spawnSync(process.execPath, [cli, 'report', prof], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.match(text.stdout, new RegExp(`crunchNumbers ${join(dir, 'src', 'hot.ts').replace(/[/\\.]/g, '\\$&')}:${CRUNCH_LINE}:`));

  // Sources deleted after the build: the report still names them, from the map's sourcesContent.
  renameSync(join(dir, 'src'), join(dir, 'src-gone'));
  try {
    assertHot(report(prof), 'webpack, sources only in the map');
  } finally {
    renameSync(join(dir, 'src-gone'), join(dir, 'src'));
  }
});

test('Rollup + @rollup/plugin-terser: the minified function by its name in src/hot.ts', async () => {
  const js = await buildRollup(dir);
  assert.doesNotMatch(readFileSync(js, 'utf8'), /function crunchNumbers/);
  assertHot(report(cpuProfile(js, join(dir, 'prof-rollup'))), 'rollup');
});

test('tsc with outDir and a file:// sourceRoot: src/hot.ts from dist-tsc/hot.js', () => {
  const js = buildTsc(dir);
  const map = JSON.parse(readFileSync(join(dir, 'dist-tsc', 'hot.js.map'), 'utf8')) as { sourceRoot: string; sources: string[] };
  assert.match(map.sourceRoot, /^file:\/\//);
  assert.deepEqual(map.sources, ['hot.ts']);
  assertHot(report(cpuProfile(js, join(dir, 'prof-tsc'))), 'tsc');
});

test('resolveSourceMapLocations default: a bundle under node_modules keeps its generated names, as the debugger skips it', async () => {
  const js = await buildEsbuild(dir);
  const dep = join(dir, 'node_modules', 'bundled-dep');
  mkdirSync(dep, { recursive: true });
  copyFileSync(js, join(dep, 'app.js'));
  copyFileSync(js + '.map', join(dep, 'app.js.map'));
  const j = report(cpuProfile(join(dep, 'app.js'), join(dir, 'prof-dep')));
  const top = j.functions[0];
  assert.notEqual(top.name, 'crunchNumbers');
  assert.equal(top.file, join(dep, 'app.js'));
});

test('map cache: a map rebuilt beside an unchanged script is read again (path + modification time of both)', async () => {
  const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');
  const js = join(dir, 'dist-cache', 'app.js');
  await esbuild.build({
    entryPoints: [join(dir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    sourcemap: true,
    outfile: js,
    logLevel: 'silent',
  });
  const lines = readFileSync(js, 'utf8').split('\n');
  const genLine = lines.findIndex((l) => l.includes('function crunchNumbers(')) + 1;
  const build = () => {
    const b = new ProfileBuilder('cpuprofile');
    b.sample(
      [b.frame({ name: 'crunchNumbers', file: js, line: genLine, column: lines[genLine - 1].indexOf('(') + 1, category: 'app' })],
      3,
    );
    return b.build();
  };
  const cache = new SourceMapCache();
  const first = build();
  await applySourceMaps(first, cache);
  assert.equal(first.frames[0].file, join(dir, 'src', 'hot.ts'));
  // The same map, its sources renamed: only the map file changes (and its time).
  const map = JSON.parse(readFileSync(js + '.map', 'utf8')) as { sources: string[] };
  map.sources = map.sources.map((s) => s.replace('hot.ts', 'hot-renamed.ts'));
  copyFileSync(join(dir, 'src', 'hot.ts'), join(dir, 'src', 'hot-renamed.ts'));
  writeFileSync(js + '.map', JSON.stringify(map));
  utimesSync(js + '.map', new Date(), new Date(Date.now() + 5000));
  const second = build();
  await applySourceMaps(second, cache);
  assert.equal(second.frames[0].file, join(dir, 'src', 'hot-renamed.ts'));
  rmSync(join(dir, 'src', 'hot-renamed.ts'));
});
