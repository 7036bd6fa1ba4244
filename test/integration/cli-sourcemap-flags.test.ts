// --source-map-path-override and --resolve-source-map-locations (the editor's settings as CLI flags): a real
// esbuild bundle whose map names its sources under a custom scheme that no default resolves, profiled for real.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import type { JsonReport } from '../../src/core/exporters/json';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'nf-smflags-')));
after(() => rmSync(work, { recursive: true, force: true }));

// The sources live in orig/, the bundle in out/: `src/hot.ts` is under neither the bundle's folder nor its parents.
const HOT_TS = `// Types first, so the bundle moves the function to another line.
export interface Budget {
  ms: number;
}

export function churn(b: Budget): number {
  const end = Date.now() + b.ms;
  let acc = 3;
  while (Date.now() < end) for (let i = 0; i < 50000; i++) acc = (acc * 48271) % 2147483647;
  return acc;
}
`;
const CHURN_LINE = 6;
mkdirSync(join(work, 'orig', 'src'), { recursive: true });
writeFileSync(join(work, 'orig', 'src', 'hot.ts'), HOT_TS);
writeFileSync(join(work, 'orig', 'src', 'main.ts'), `import { churn } from './hot';\nconsole.log(churn({ ms: 700 }));\n`);

const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');
const bundle = join(work, 'out', 'bundle.js');
esbuild.buildSync({
  entryPoints: [join(work, 'orig', 'src', 'main.ts')],
  bundle: true,
  platform: 'node',
  outfile: bundle,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'silent',
});
// As a bundler with its own scheme writes them (webpack://name/…, app://…): custom://flame/src/hot.ts.
const mapFile = bundle + '.map';
const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] };
map.sources = map.sources.map((s) => 'custom://flame/' + s.replace(/^(\.\.\/)+orig\//, ''));
writeFileSync(mapFile, JSON.stringify(map));

const profDir = join(work, 'prof');
const ran = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, bundle], { cwd: work, encoding: 'utf8' });
assert.equal(ran.status, 0, ran.stderr);
const prof = join(profDir, readdirSync(profDir)[0]);

function report(...args: string[]): JsonReport {
  const r = spawnSync(process.execPath, [cli, 'report', prof, '--format', 'json', '--top', '100000', ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}

const churnOf = (j: JsonReport) => {
  const f = j.functions.find((x) => x.name === 'churn');
  assert.ok(f, `churn among ${j.functions.map((x) => `${x.name}@${x.file}:${x.line}`).join(', ')}`);
  return [f.file, f.line];
};

const OVERRIDE = ['--source-map-path-override', 'custom://flame/*=./orig/*'];

test('the map names custom://flame/src/hot.ts: the sources resolve only with --source-map-path-override', () => {
  assert.ok(map.sources.includes('custom://flame/src/hot.ts'), map.sources.join(', '));
  const without = churnOf(report());
  assert.equal(without[0], bundle, 'without the flag the function stays in the bundle');
  assert.notEqual(without[1], CHURN_LINE);
  assert.deepEqual(churnOf(report(...OVERRIDE)), [join(work, 'orig', 'src', 'hot.ts'), CHURN_LINE]);
  // ${workspaceFolder} is the current folder, as in the editor's setting.
  assert.deepEqual(churnOf(report('--source-map-path-override', 'custom://flame/*=${workspaceFolder}/orig/*')), [
    join(work, 'orig', 'src', 'hot.ts'),
    CHURN_LINE,
  ]);
});

test('--resolve-source-map-locations "!out/**" turns the map of that bundle off; "**/out/*.js" keeps it on', () => {
  assert.equal(churnOf(report(...OVERRIDE, '--resolve-source-map-locations', '!out/**'))[0], bundle);
  assert.equal(churnOf(report(...OVERRIDE, '--resolve-source-map-locations', '!**/bundle.js'))[0], bundle);
  assert.deepEqual(churnOf(report(...OVERRIDE, '--resolve-source-map-locations', '**/out/*.js')), [
    join(work, 'orig', 'src', 'hot.ts'),
    CHURN_LINE,
  ]);
  // A list without the bundle reads no map.
  assert.equal(churnOf(report(...OVERRIDE, '--resolve-source-map-locations', 'lib/**'))[0], bundle);
});

test('profile --mode cpu-prof takes the same flags; a flag without "=" is a usage error', () => {
  const r = spawnSync(
    process.execPath,
    [cli, 'profile', '--mode', 'cpu-prof', '--out', join(work, 'runs'), ...OVERRIDE, '--', 'node', bundle],
    { cwd: work, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`churn ${join(work, 'orig', 'src', 'hot.ts').replace(/[.\\/]/g, '\\$&')}:${CHURN_LINE}:`));
  const bad = spawnSync(process.execPath, [cli, 'diff', prof, prof, '--source-map-path-override', 'custom://flame/*'], {
    cwd: work,
    encoding: 'utf8',
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--source-map-path-override wants pattern=path/);
  const help = spawnSync(process.execPath, [cli, 'report', '--help'], { encoding: 'utf8' });
  assert.match(help.stdout, /--source-map-path-override <pattern=path>/);
  assert.match(help.stdout, /--resolve-source-map-locations <glob>/);
});
