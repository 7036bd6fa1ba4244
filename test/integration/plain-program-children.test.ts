// `profile -- node parent.js` where the program forks a child: the child is profiled (the process tree work), and the
// report the run prints must read it too. It read only the first profile of a plain program, so the child's
// function, the hottest of the run, was silently missing from `profile`'s report and from the editor's final view.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';
import type { JsonFunctionRow } from '../helpers/corpusChecks';

const work = mkdtempSync(join(tmpdir(), 'nf-plain-children-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'parent.js'),
  `const { fork } = require('node:child_process');
function busy(ms) { let x = 0; const t = Date.now(); while (Date.now() - t < ms) x += Math.sqrt(x + 1); return x; }
function childHot() { return busy(900); }
function parentHot() { return busy(300); }
if (process.argv[2] === 'child') childHot();
else {
  parentHot();
  fork(__filename, ['child']);
}
`,
);

for (const mode of ['cpu-prof', 'prof', 'perf'] as const) {
  test(
    `${mode}: the report of a plain program that forks has the child's function`,
    { timeout: 120_000, skip: mode === 'perf' && perfCannotRecord },
    async () => {
      const r = await runCli(
        ['profile', '--mode', mode, '--format', 'json', '--top', '1000', '--out', join(work, 'runs'), '--', 'node', 'parent.js'],
        {
          cwd: work,
          killAfterMs: 100_000,
        },
      );
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as { functions: JsonFunctionRow[]; processes?: { pid: number }[] };
      const total = (name: string) => report.functions.filter((f) => f.name === name).reduce((s, f) => s + f.total, 0);
      console.log(
        `[${mode}] childHot ${(total('childHot') * 100).toFixed(1)} %, parentHot ${(total('parentHot') * 100).toFixed(1)} %, processes ${report.processes?.length}`,
      );
      assert.equal(report.processes?.length, 2, 'both processes are in the report');
      assert.ok(total('childHot') > 0, "the forked child's function is in the report");
      assert.ok(total('parentHot') > 0);
      // The child ran three times as long: its function weighs more than the parent's.
      assert.ok(total('childHot') > total('parentHot'));
    },
  );
}
