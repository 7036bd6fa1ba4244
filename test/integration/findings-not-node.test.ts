// perf records every process of the run, Node or not: tsx's esbuild service, a shell step of a build. The findings are
// about Node (the event loop, V8, the load), and on such a process they misread it: tsx's esbuild, waiting for work,
// got "the app was idle for 98 %: the load did not reach it" and a warning that esbuild's code has no symbols. Here a
// Node program runs a shell loop: the shell is in the run, and no finding is about it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { reportJson, runCli, runDirOf } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';

const work = mkdtempSync(join(tmpdir(), 'nf-findings-not-node-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'app.js'),
  `const { spawnSync } = require('node:child_process');
function busy(ms) { let x = 0; const t = Date.now(); while (Date.now() - t < ms) x += Math.sqrt(x + 1); return x; }
function appHot() { return busy(600); }
appHot();
spawnSync('sh', ['-c', 'sleep 0.8; i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done'], { stdio: 'inherit' });
`,
);

test('perf: a process of the run that is not Node gets no finding', { timeout: 120_000, skip: perfCannotRecord }, async () => {
  const r = await runCli(['profile', '--mode', 'perf', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'app.js'], {
    cwd: work,
    killAfterMs: 100_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const report = reportJson<JsonReport>(runDirOf(r));
  const shell = report.processes?.find((p) => /^(sh|dash)\b/.test(p.command));
  const app = report.processes?.find((p) => p.command.includes('app.js'));
  console.log(
    `[findings-not-node] processes ${JSON.stringify(report.processes?.map((p) => [p.pid, p.command, p.samples]))}; ` +
      `findings ${JSON.stringify(report.findings.map((f) => [f.rule, f.pid]))}`,
  );
  assert.ok(shell && shell.samples > 20, `perf recorded the shell's loop: ${JSON.stringify(report.processes)}`);
  assert.ok(app, 'the Node program is in the run');
  assert.deepEqual(
    report.findings.filter((f) => f.pid === shell.pid).map((f) => f.rule),
    [],
    'no finding about the shell',
  );
  assert.ok(
    report.functions.some((f) => f.name === 'appHot' || f.name === 'busy'),
    "the Node program's functions are read as before",
  );
});
