// Functions that start on one line are told apart by their column: a minified file's one line holds hundreds of
// functions (terser's mangled `$t` eleven times in markdown-it), and TypeScript's compiler has lines with two arrow
// functions. The function merge keyed them by name, file and line only, so the JSON's `functions` (and the viewer's
// boxes) showed one row for all of them, at the column of whichever came first: 7.4 % self at the column of a
// function that held 6 of its 168 samples. Two arrow functions on one line, profiled for real in each mode.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileJson } from '../helpers/cli';
import type { JsonFunctionRow } from '../helpers/corpusChecks';
import { perfCannotRecord } from '../helpers/perfProbe';

const work = mkdtempSync(join(tmpdir(), 'nf-one-line-'));
after(() => rmSync(work, { recursive: true, force: true }));
// Line 2: two functions named `t` (as a minifier names them), the first busy three times as long as the second.
writeFileSync(
  join(work, 'app.js'),
  `function spin(ms) { const t = Date.now(); let s = 0; while (Date.now() - t < ms) s += Math.sqrt(s + 1); return s; }
const work = [function t() { spin(3); }, function t() { spin(1); }];
const end = Date.now() + 1500;
while (Date.now() < end) for (const w of work) w();
`,
);

const hasPerf = !perfCannotRecord;

for (const mode of ['cpu-prof', 'prof', 'perf'] as const)
  test(
    `${mode}: two functions on one line are two rows, each at its own column`,
    { timeout: 120_000, skip: mode === 'perf' && !hasPerf && 'no perf' },
    async () => {
      const { report } = await profileJson<{ functions: JsonFunctionRow[] }>(work, mode, mode, ['node', 'app.js'], ['--top', '1000']);
      const rows = report.functions.filter((f) => f.name === 't' && f.file?.endsWith('app.js') && f.line === 2);
      const columns = rows.map((r) => r.column).sort((a, b) => (a ?? 0) - (b ?? 0));
      assert.deepEqual(columns, [25, 52], JSON.stringify(rows));
      const [first, second] = [rows.find((r) => r.column === 25)!, rows.find((r) => r.column === 52)!];
      assert.ok(first.total > second.total * 1.5, `the first runs three times as long: ${JSON.stringify(rows)}`);
    },
  );
