import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { freePort } from '../helpers/net';
import type { JsonReport } from '../../src/core/exporters/json';

// examples/typescript-server run the way its README says: node --import tsx, profiled by the CLI under
// a short autocannon load. tsx transpiles in memory, so only the run's saved source maps can put
// the frames back on src/*.ts lines.
const example = join(repoRoot, 'examples', 'typescript-server');
const srcDir = join(example, 'src');
const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');
const out = mkdtempSync(join(tmpdir(), 'nf-example-ts-'));
test.after(() => rmSync(out, { recursive: true, force: true }));

/** Line of `function <name>(` in a source file, 0 when it is not declared there. */
function declLine(file: string, name: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  // A closure (`const next = () => …`) is named from its declaration too, when V8 logged it without a name.
  return lines.findIndex((l) => new RegExp(`\\bfunction ${name}\\(|\\b(?:const|let|var) ${name} = `).test(l)) + 1;
}

function report(profile: string, ...args: string[]): JsonReport {
  const r = spawnSync(process.execPath, [cli, 'report', profile, '--format', 'json', '--top', '300', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}

async function profileExample(mode: string): Promise<{ profile: string; runDir: string }> {
  const port = await freePort();
  const load = `"${process.execPath}" "${autocannon}" -c 4 -d 2 http://localhost:${port}/report?rows=50`;
  const r = spawnSync(
    process.execPath,
    [
      cli,
      'profile',
      '--mode',
      mode,
      '--no-report',
      '--out',
      out,
      '--port',
      String(port),
      '--load',
      load,
      '--',
      'node',
      '--import',
      'tsx',
      join(srcDir, 'server.ts'),
    ],
    { cwd: repoRoot, encoding: 'utf8', timeout: 90_000, env: { ...process.env, PORT: String(port) } },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /\d+ requests in/, 'the load ran');
  const profile = /^Profile: (.+)$/m.exec(r.stderr)?.[1];
  assert.ok(profile && existsSync(profile), r.stderr);
  return { profile, runDir: dirname(profile) };
}

/** Every named frame from src/*.ts sits on the line where that function is declared. */
function assertMappedToTs(j: JsonReport): JsonReport['functions'] {
  const ours = j.functions.filter((f) => f.file?.startsWith(srcDir + '/'));
  assert.ok(ours.length >= 3, `frames from src/: ${ours.map((f) => f.name).join(', ')}`);
  for (const f of ours) {
    assert.match(f.file!, /\.ts$/);
    // Closures have no name to find, and tsx's injected helpers (`__name`) no declaration.
    if (f.name === '(anonymous)' || f.name === '' || f.name.startsWith('__')) continue;
    // The export accessors tsx adds (`makeRows: () => makeRows`) take the export's name and map to 1:1;
    // a sample may land in one. No function of these files is declared at 1:1.
    if (f.line === 1 && f.column === 1) continue;
    // esbuild's `__export` helper defines each export as a getter; a sample that lands in one is named `get`.
    if (f.name === 'get' && declLine(f.file!, f.name) === 0) continue;
    assert.equal(f.line, declLine(f.file!, f.name), `${f.name} at ${f.file}:${f.line}:${f.column}`);
    assert.equal(f.category, 'app');
  }
  return ours;
}

function describe(fs: JsonReport['functions']): string {
  return fs
    .slice(0, 6)
    .map(
      (f) =>
        `${f.name} ${f.file?.slice(srcDir.length + 1)}:${f.line} self ${(f.self * 100).toFixed(1)}% total ${(f.total * 100).toFixed(1)}%`,
    )
    .join('; ');
}

test(
  "typescript-server under --cpu-prof: the hot path at its src/*.ts lines, through the run's in-memory source maps",
  { timeout: 120_000 },
  async () => {
    const { profile, runDir } = await profileExample('cpu-prof');
    assert.ok(
      readdirSync(runDir).some((n) => /^sourcemaps-\d+-0\.json$/.test(n)),
      "the preload saved the transpiled scripts' maps",
    );
    const j = report(profile);
    const ours = assertMappedToTs(j).sort((a, b) => b.self - a.self);
    console.log(`cpu-prof: ${j.samples} samples; ${describe(ours)}`);
    // movingAverage may be inlined into sparkline or renderRow; whichever holds it is on top of our frames.
    assert.ok(['movingAverage', 'sparkline', 'renderRow'].includes(ours[0].name), describe(ours));
    const renderRow = ours.find((f) => f.name === 'renderRow');
    assert.ok(renderRow && renderRow.total >= ours[0].self, 'renderRow holds the hot path');

    // Without the saved maps the same frames point into tsx's output instead.
    const raw = report(profile, '--no-source-maps');
    const rawRow = raw.functions.find((f) => f.name === 'renderRow');
    assert.ok(
      rawRow && rawRow.line !== declLine(join(srcDir, 'render.ts'), 'renderRow'),
      `generated position ${rawRow?.line}:${rawRow?.column}`,
    );
  },
);

test('typescript-server under --prof: movingAverage on top at src/chart.ts:14', { timeout: 120_000 }, async () => {
  const { profile } = await profileExample('prof');
  const j = report(profile);
  const ours = assertMappedToTs(j).sort((a, b) => b.self - a.self);
  console.log(`prof: ${j.samples} ticks; ${describe(ours)}`);
  const chart = join(srcDir, 'chart.ts');
  assert.equal(ours[0].file, chart, describe(ours));
  assert.ok(['movingAverage', 'sparkline'].includes(ours[0].name), describe(ours));
  const ma = ours.find((f) => f.name === 'movingAverage');
  assert.ok(ma, 'movingAverage is a frame of its own under --prof');
  assert.equal(ma.line, declLine(chart, 'movingAverage'));
});
