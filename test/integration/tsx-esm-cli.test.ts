// A TypeScript app of ES modules run the way its package.json says (`"start": "tsx src/main.ts"`): tsx's CLI starts
// the node process that loads the code, through its loader hooks, with the maps of what it compiled inline and only
// in memory. Before, only a node the launcher started itself saved them: each function of src/*.ts was reported at
// line 1 of its file (a column into tsx's output), in every mode, with no word said.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileJson, reportJson, runCli, runDirOf, runJson } from '../helpers/cli';
import { repoRoot } from '../helpers/paths';
import type { JsonReport } from '../../src/core/exporters/json';

const app = mkdtempSync(join(tmpdir(), 'nf-tsx-esm-'));
after(() => rmSync(app, { recursive: true, force: true }));
mkdirSync(join(app, 'src'));
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tsx-esm', private: true, type: 'module' }));
// Types and an interface esbuild strips: the functions move up in its output.
writeFileSync(
  join(app, 'src', 'work.ts'),
  `// Shapes only the compiler sees.
interface Point {
  x: number;
  y: number;
}

type Pair = [Point, Point];

export function distance(pair: Pair): number {
  const [a, b] = pair;
  return Math.hypot(a.x - b.x, a.y - b.y);
}

export function sortLabels(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(\`label-\${(i * 7919) % n}\`);
  return out.sort();
}
`,
);
writeFileSync(
  join(app, 'src', 'main.ts'),
  `import { distance, sortLabels } from './work.js';

enum Mode {
  Fast,
  Slow,
}

function busyDistance(mode: Mode): number {
  let s = 0;
  const rounds = mode === Mode.Fast ? 2e5 : 4e5;
  for (let i = 0; i < rounds; i++) s += distance([{ x: i, y: 1 }, { x: 2, y: i }]);
  return s;
}

const end = Date.now() + 1500;
let total = 0;
while (Date.now() < end) {
  total += busyDistance(Mode.Slow);
  total += sortLabels(20000).length;
}
console.log('done', total > 0);
`,
);

/** Line of `function <name>(` in a file of the app. */
function declLine(file: string, name: string): number {
  return (
    readFileSync(join(app, 'src', file), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(`function ${name}(`)) + 1
  );
}

const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');

for (const mode of ['cpu-prof', 'prof']) {
  test(`${mode}: tsx's CLI on ES modules: every function of src/*.ts at the line that declares it`, { timeout: 120_000 }, async () => {
    const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(app, '.runs'), '--', tsx, 'src/main.ts'], {
      cwd: app,
      killAfterMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const j = reportJson<JsonReport>(dir);
    const ours = j.functions.filter((f) => f.file?.startsWith(join(app, 'src') + '/') && f.name !== '(anonymous)');
    const seen = ours.map((f) => `${f.name} ${f.file!.slice(app.length + 5)}:${f.line}:${f.column}`);
    console.log(`[integration] ${mode}, tsx src/main.ts: ${seen.join(', ')}`);
    for (const name of ['busyDistance', 'sortLabels'])
      assert.ok(
        ours.some((f) => f.name === name),
        `${name} found: ${seen}`,
      );
    for (const f of ours) {
      const file = f.file!.slice(app.length + 5);
      assert.equal(f.line, declLine(file, f.name), `${f.name} at ${file}:${f.line}:${f.column}`);
    }
    const loader = runJson<{ processes: { pid: number; command: string[] }[] }>(dir).processes.find((p) =>
      p.command.some((a) => a.endsWith('/preflight.cjs')),
    );
    assert.ok(loader, 'tsx started a node with its loader');
    assert.ok(readdirSync(dir).includes(`sourcemaps-${loader.pid}-0.json`), `its maps saved: ${readdirSync(dir).join(' ')}`);
  });
}

test(
  'cpu-prof: an ES module loader that gives no map: the report says, for that file, its lines may be off',
  { timeout: 120_000 },
  async () => {
    const dir = join(app, 'nomap');
    mkdirSync(dir);
    // Type annotations and an interface removed, no map given: `spin` moves from line 5 to line 2.
    writeFileSync(
      join(dir, 'loader.mjs'),
      `export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const { source } = await next(url, { ...context, format: 'module' });
  const js = String(source).replace(/^interface [^}]*}\\n/gm, '').replace(/: number/g, '');
  return { format: 'module', source: js, shortCircuit: true };
}
`,
    );
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./loader.mjs', import.meta.url);\n");
    writeFileSync(
      join(dir, 'main.ts'),
      `interface Box {
  size: number;
}

function spin(ms: number): number {
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) s += Math.sqrt(s + 1);
  return s;
}

console.log(spin(600) > 0);
`,
    );
    const { report, stderr } = await profileJson<JsonReport>(dir, 'cpu-prof', 'nomap', ['node', '--import', './register.mjs', 'main.ts']);
    const spin = report.functions.find((f) => f.name === 'spin');
    assert.ok(spin, 'spin found');
    console.log(`[integration] a loader with no map: spin at main.ts:${spin.line} (declared at 5); ${stderr.trim()}`);
    const said = `${join(dir, 'main.ts')} ran as code transformed in memory with no source map`;
    assert.ok(stderr.includes(said), stderr);
  },
);
