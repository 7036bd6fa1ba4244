// `profile -- node parent.js` where the program runs a child with execFileSync(process.execPath, [script]): the child
// has neither the command line's flags nor a fork's execArgv. It was not even recorded: the report showed the parent
// 100 % in spawnSync, one process, no warning. The preload now reaches it through NODE_OPTIONS (profiled in-process in
// cpu-prof and heap modes), and puts the run's flags in front of the arguments of spawn-like calls of
// process.execPath, so prof and perf profile it too (Node refuses --prof in NODE_OPTIONS). Async spawn and a spawn
// through a shell (left alone: recorded, named in a warning under prof) are checked under prof.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileJson } from '../helpers/cli';
import type { JsonFunctionRow } from '../helpers/corpusChecks';
import { perfCannotRecord } from '../helpers/perfProbe';

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

const hasPerf = !perfCannotRecord;

type SpawnReport = { functions: JsonFunctionRow[]; processes?: { pid: number; command: string; samples: number }[] };

/**
 * childSpin holds most of the child's samples (it spins 1.2 s of its life), whatever the parent's start-up took of the
 * run: a fixed share of the run failed on a slower machine (0.295 and 0.299 of the run, the bound 0.3).
 */
function assertChildSpinHolds(report: SpawnReport): void {
  const procs = report.processes ?? [];
  const childShare = (procs.find((p) => p.command.endsWith('child.js'))?.samples ?? 0) / procs.reduce((a, p) => a + p.samples, 0);
  const spin = report.functions.find((f) => f.name === 'childSpin' && f.file?.endsWith('child.js'));
  assert.ok(
    spin && spin.total > 0.5 * childShare,
    `childSpin named, most of the child's time (the child ${childShare.toFixed(3)} of the run): ${JSON.stringify(spin)}`,
  );
}

for (const mode of ['cpu-prof', 'prof', 'heap', 'perf'] as const)
  test(
    `${mode}: a child run with execFileSync(process.execPath) is in the run`,
    { timeout: 120_000, skip: mode === 'perf' && !hasPerf && 'no perf' },
    async () => {
      const { report, stderr } = await profileJson<SpawnReport>(work, mode, mode, ['node', 'parent.js'], ['--top', '1000']);
      const commands = (report.processes ?? []).map((p) => p.command);
      assert.equal(commands.length, 2, `both processes are in the run: ${JSON.stringify(commands)}`);
      assert.ok(
        commands.some((c) => c.endsWith('child.js')),
        JSON.stringify(commands),
      );
      const child = report.functions.filter((f) => f.file?.endsWith('child.js'));
      assert.ok(child.length > 0, `the child's code is in the ${mode} profile`);
      assert.doesNotMatch(stderr, /left no profile/);
      if (mode !== 'heap') assertChildSpinHolds(report);
    },
  );

test('prof: async spawn of process.execPath is profiled; one through a shell is recorded and said', { timeout: 120_000 }, async () => {
  writeFileSync(
    join(work, 'async.js'),
    `const { spawn, execSync } = require('node:child_process');
const path = require('node:path');
execSync(JSON.stringify(process.execPath) + ' ' + JSON.stringify(path.join(__dirname, 'child.js')));
spawn(process.execPath, [path.join(__dirname, 'child.js')], { stdio: 'inherit' }).on('exit', (c) => process.exit(c ?? 1));
`,
  );
  const { report, stderr } = await profileJson<{ functions: JsonFunctionRow[]; processes?: { pid: number; command: string }[] }>(
    work,
    'prof',
    'prof-async',
    ['node', 'async.js'],
    ['--top', '1000'],
  );
  const commands = (report.processes ?? []).map((p) => p.command);
  assert.equal(commands.filter((c) => c.endsWith('child.js')).length, 2, JSON.stringify(commands));
  assert.equal((stderr.match(/\(child\.js\) left no profile/g) ?? []).length, 1, stderr);
  assert.ok(report.functions.some((f) => f.name === 'childSpin' && f.file?.endsWith('child.js')));
});

// A plain program's prof and perf runs put the `node` shim first on PATH, as a command's run does: a child its code
// starts through a shell by the name `node` gets the profiler flags (before: recorded, "left no profile" under prof,
// its JavaScript unnamed under perf).
for (const mode of ['prof', 'perf'] as const)
  test(
    `${mode}: a child started through a shell as \`node child.js\` is profiled`,
    { timeout: 120_000, skip: mode === 'perf' && !hasPerf && 'no perf' },
    async () => {
      writeFileSync(
        join(work, 'shell.js'),
        `require('node:child_process').execSync('node child.js', { cwd: __dirname, stdio: 'inherit' });\n`,
      );
      const { report, stderr } = await profileJson<SpawnReport>(work, mode, `${mode}-shell`, ['node', 'shell.js'], ['--top', '1000']);
      const commands = (report.processes ?? []).map((p) => p.command);
      assert.ok(
        commands.some((c) => c.endsWith('child.js')),
        JSON.stringify(commands),
      );
      assert.doesNotMatch(stderr, /left no profile/);
      assertChildSpinHolds(report);
    },
  );
