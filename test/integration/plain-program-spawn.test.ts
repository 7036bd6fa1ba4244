// `profile -- node parent.js` where the program runs a child with execFileSync(process.execPath, [script]): the child
// has neither the command line's flags nor a fork's execArgv. It was not even recorded: the report showed the parent
// 100 % in spawnSync, one process, no warning. The preload now reaches it through NODE_OPTIONS: profiled in-process in
// cpu-prof and heap modes, recorded and named in a warning in prof mode (Node refuses --prof in NODE_OPTIONS).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileJson } from '../helpers/cli';
import type { JsonFunctionRow } from '../helpers/corpusChecks';

const work = mkdtempSync(join(tmpdir(), 'nf-plain-spawn-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'child.js'),
  `function childSpin() { const t = Date.now(); let s = 0; while (Date.now() - t < 1200) s += Math.sqrt(s + 1); return s; }
const keep = [];
for (let i = 0; i < 3e5; i++) keep.push({ i });
console.log(childSpin() > 0, keep.length);
`,
);
writeFileSync(
  join(work, 'parent.js'),
  `const { execFileSync } = require('node:child_process');
console.log(execFileSync(process.execPath, [require('node:path').join(__dirname, 'child.js')], { encoding: 'utf8' }).trim());
`,
);

for (const mode of ['cpu-prof', 'prof', 'heap'] as const)
  test(`${mode}: a child run with execFileSync(process.execPath) is in the run`, { timeout: 120_000 }, async () => {
    const { report, stderr } = await profileJson<{ functions: JsonFunctionRow[]; processes?: { pid: number; command: string }[] }>(
      work,
      mode,
      mode,
      ['node', 'parent.js'],
      ['--top', '1000'],
    );
    const commands = (report.processes ?? []).map((p) => p.command);
    assert.equal(commands.length, 2, `both processes are in the run: ${JSON.stringify(commands)}`);
    assert.ok(
      commands.some((c) => c.endsWith('child.js')),
      JSON.stringify(commands),
    );
    const child = report.functions.filter((f) => f.file?.endsWith('child.js')).length;
    if (mode === 'prof') {
      // Recorded, not profiled: said, not silent.
      assert.match(stderr, /\(child\.js\) left no profile/);
    } else {
      assert.ok(child > 0, `the child's code is in the ${mode} profile`);
      assert.doesNotMatch(stderr, /left no profile/);
    }
  });
