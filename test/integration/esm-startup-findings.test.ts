// An ES module server imports at its top; V8 runs the ES loader from promise jobs, not under the entry module's
// frames, so that loading read as "after start-up": an Express server written as .mjs under 4 s of load got
// "Loading modules takes 4.6 % of samples after start-up" (prof; 2.2 % cpu-prof), and so did tsx's TypeScript server.
// Its start-up is start-up now, while a require() on the request path is still found.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { runCli } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-esm-startup-'));
after(() => rmSync(work, { recursive: true, force: true }));
// 150 modules imported at the top, each with some code to compile and run: the start-up's loading is well over 2 %.
const MODULES = 150;
for (let i = 0; i < MODULES; i++)
  writeFileSync(
    join(work, `m${i}.mjs`),
    `export const table${i} = Array.from({ length: 2000 }, (_, k) => (k * ${i + 1}) % 97);\n` +
      Array.from({ length: 40 }, (_, k) => `export function f${i}_${k}(x) { return table${i}[(x + ${k}) % 2000] * ${k}; }`).join('\n'),
  );
const imports = Array.from({ length: MODULES }, (_, i) => `import { table${i} } from './m${i}.mjs';`).join('\n');
const tables = Array.from({ length: MODULES }, (_, i) => `table${i}`).join(', ');
const serve = (handler: string) => `import http from 'node:http';
import { createRequire } from 'node:module';
${imports}
const require = createRequire(import.meta.url);
const tables = [${tables}];
function work(n) { let s = 0; for (let i = 0; i < n; i++) s += tables[i % tables.length][i % 2000]; return s; }
const server = http.createServer((req, res) => { ${handler} });
server.listen(0, () => console.log('listening on http://localhost:' + server.address().port));
`;
writeFileSync(join(work, 'server.mjs'), serve('res.end(String(work(3e6)));'));
// The control: a require() of a module taken out of the cache on every request, the finding's own case.
writeFileSync(join(work, 'fresh.cjs'), Array.from({ length: 300 }, (_, k) => `exports.g${k} = (x) => x + ${k};`).join('\n'));
writeFileSync(
  join(work, 'server-require.mjs'),
  serve(`delete require.cache[require.resolve('./fresh.cjs')]; const m = require('./fresh.cjs'); res.end(String(work(1e5) + m.g1(1)));`),
);
writeFileSync(
  join(work, 'load.mjs'),
  `const end = Date.now() + 2000;
while (Date.now() < end) await fetch('http://localhost:' + process.argv[2] + '/').then((r) => r.text());
`,
);

async function findings(mode: string, server: string): Promise<JsonReport['findings']> {
  const out = join(work, `${mode}-${server}.json`);
  const r = await runCli(
    [
      'profile',
      '--mode',
      mode,
      '--format',
      'json',
      '-o',
      out,
      '--out',
      join(work, 'runs'),
      '--load',
      `"${process.execPath}" load.mjs $NODE_FLAME_PORT`,
      '--',
      'node',
      server,
    ],
    { cwd: work, killAfterMs: 100_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(readFileSync(out, 'utf8')) as JsonReport).findings;
}

for (const mode of ['cpu-prof', 'prof'] as const) {
  test(`${mode}: an ES module server's imports at its top are start-up, a require() per request is not`, { timeout: 240_000 }, async () => {
    const esm = await findings(mode, 'server.mjs');
    const perRequest = await findings(mode, 'server-require.mjs');
    const rules = (fs: JsonReport['findings']) => fs.map((f) => `${f.rule} ${(f.share * 100).toFixed(1)}%`).join(', ');
    console.log(`[esm-startup] ${mode}: imports at the top → [${rules(esm)}]; require() per request → [${rules(perRequest)}]`);
    assert.ok(!esm.some((f) => f.rule === 'hot-module-load'), `no hot-module-load for imports at the top: ${rules(esm)}`);
    assert.ok(
      perRequest.some((f) => f.rule === 'hot-module-load'),
      `the require() on the request path is still found: ${rules(perRequest)}`,
    );
  });
}
