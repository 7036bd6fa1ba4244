// `node --test` starts its runner process without the inspector (Node 20: "This Environment was initialized without a
// V8::Inspector"), so the in-process profilers of cpu-prof and heap modes cannot start there. The run must say that
// about that process, not guess that it was killed, and still profile the test files' own processes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { runCli, runDirOf } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-noinspector-'));
after(() => rmSync(work, { recursive: true, force: true }));

writeFileSync(
  join(work, 'busy.test.js'),
  `const test = require('node:test');
function busyTest() { let x = 0; for (let i = 0; i < 1e5; i++) x += Math.sqrt(i); return x; }
const made = [];
test('busy', () => { const end = Date.now() + 600; while (Date.now() < end) { busyTest(); made.push(new Array(1024).fill(made.length)); } });
`,
);

interface Report {
  processes: { pid: number; command: string; samples: number }[];
  functions: { name: string; self: number }[];
}

/** `profile` of a `node --test` command in `mode`, then `report --format json` of its run folder. */
async function profileReport(mode: string, out: string, command: string[]) {
  const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', out, '--', ...command], {
    cwd: work,
    killAfterMs: 60_000,
    // Inside a test file, node:test would skip the nested run's files.
    env: { NODE_TEST_CONTEXT: undefined },
  });
  assert.equal(r.code, 0, r.stderr);
  const rep = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'cli.js'), 'report', runDirOf(r), '--format', 'json', '--top', '100000'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(rep.status, 0, rep.stderr);
  return { report: JSON.parse(rep.stdout) as Report, rep };
}

for (const mode of ['cpu-prof', 'heap']) {
  test(
    `${mode}: node --test's runner process is named as run without the inspector; the test file's process is profiled`,
    { timeout: 90_000 },
    async () => {
      const { report, rep } = await profileReport(mode, join(work, 'runs'), ['node', '--test', 'busy.test.js']);
      const runner = report.processes.find((p) => p.command === 'node --test busy.test.js');
      const file = report.processes.find((p) => p !== runner && /busy\.test\.js/.test(p.command));
      console.log(`${mode}: ${report.processes.map((p) => `${p.command} ${p.samples}`).join(', ')}; ${rep.stderr.trim()}`);
      assert.ok(runner, JSON.stringify(report.processes));
      assert.ok(file && file.samples > 0, JSON.stringify(report.processes));
      assert.match(rep.stderr, new RegExp(`process ${runner.pid} \\([^)]*\\) ran without the inspector`));
      assert.doesNotMatch(rep.stderr, /left no profile/);
      if (mode === 'cpu-prof')
        assert.ok(
          report.functions.some((f) => f.name === 'busyTest' && f.self > 0.3),
          JSON.stringify(report.functions.slice(0, 5)),
        );
    },
  );
}

// With no files named, `node --test` finds them itself: its command was all the profiler's flags
// (`node --prof --logfile=… --test`), which said nothing of which process it was.
test('prof: node --test with no files is named `node --test`, not by the profiler’s flags', { timeout: 90_000 }, async () => {
  const { report } = await profileReport('prof', join(work, 'runs-prof'), ['node', '--test']);
  const commands = report.processes.map((p) => p.command);
  assert.ok(commands.includes('node --test'), JSON.stringify(commands));
  assert.ok(!commands.some((c) => /--prof|--logfile/.test(c)), JSON.stringify(commands));
});
