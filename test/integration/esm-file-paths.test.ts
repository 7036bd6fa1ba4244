// V8 names an ES module's script by its URL. cpu-prof's importer turned it into the file's path, but prof and perf kept
// the URL: the same function was `/x/app.mjs` in one mode's JSON and `file:///x/app.mjs` in another's, and a folder
// with a space read `esm%20app`, a path that does not exist. Every mode now gives the path.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { preflightPerf } from '../../src/launch/perf';
import { profileJson } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-esm-paths-'));
after(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, 'esm app', 'app.mjs');
mkdirSync(join(work, 'esm app'));
writeFileSync(
  app,
  `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 1500;
let x = 0;
while (Date.now() < end) x += fib(20);
console.log(x > 0);
`,
);

for (const mode of ['cpu-prof', 'prof', 'perf'] as const)
  test(`${mode}: an ES module's functions are at its path, not its file:// URL`, { timeout: 120_000 }, async (t) => {
    if (mode === 'perf') {
      const pre = await preflightPerf();
      if (!pre.ok) return t.skip(pre.message);
    }
    const { report } = await profileJson<JsonReport>(join(work, 'esm app'), mode, mode, ['node', app]);
    const fib = report.functions.find((f) => f.name === 'fib');
    assert.ok(fib, `fib is in the ${mode} report`);
    assert.equal(fib.file, app);
    assert.equal(fib.line, 1);
    assert.ok(existsSync(fib.file!), 'a file that is there');
    const urls = report.functions.filter((f) => f.file?.startsWith('file:'));
    assert.deepEqual(
      urls.map((f) => `${f.name} ${f.file}`),
      [],
      'no function of the run is named by a file:// URL',
    );
  });
