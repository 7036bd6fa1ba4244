// A process that dies by a signal (nodemon restarts its app with SIGUSR2; a terminal hangs up) must
// leave its profile in every mode, and die the way it would have died unprofiled: cpu-prof writes
// its in-process profile first and raises the signal again; an app's own handler is left to decide.
// A process that leaves nothing (SIGKILL) is named in a warning, not shown as an idle process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { runCli, runDirOf } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-signal-'));
after(() => rmSync(work, { recursive: true, force: true }));

// The parent forks a busy child, signals it after 1.5 s (as nodemon does on an edit), then starts the next one.
writeFileSync(
  join(work, 'parent.js'),
  `const { fork } = require('node:child_process');
const [sig, handler] = process.argv.slice(2);
function start(n) {
  const child = fork(__dirname + '/child.js', [String(n), handler]);
  setTimeout(() => child.kill(sig), 1500);
  return new Promise((res) => child.on('exit', (code, signal) => { console.log('child ' + n + ' pid=' + child.pid + ' code=' + code + ' signal=' + signal); res(); }));
}
start(1).then(() => start(2));
`,
);
writeFileSync(
  join(work, 'child.js'),
  `function busyChild() { let x = 0; for (let i = 0; i < 1e6; i++) x += Math.sqrt(i); return x; }
// Heap mode needs bytes: ~8 MB made as the child starts, whatever the machine's load (busyChild makes almost none).
const made = []; for (let i = 0; i < 64; i++) made.push(new Array(16384).fill(i));
setInterval(() => { const end = Date.now() + 40; while (Date.now() < end) busyChild(); }, 50);
const handler = process.argv[3];
// nodemon's documented pattern: clean up, then die by the same signal
if (handler === 'reraise') process.once('SIGUSR2', () => { console.log('cleanup'); process.kill(process.pid, 'SIGUSR2'); });
// a graceful shutdown that takes a while and exits with its own code
if (handler === 'graceful') process.on('SIGTERM', () => { console.log('graceful'); setTimeout(() => process.exit(3), 200); });
`,
);

interface Report {
  processes: { pid: number; command: string; samples: number }[];
  functions: { name: string; self: number }[];
}

async function run(mode: string, sig: string, handler = 'none'): Promise<{ out: string; report: Report; warnings: string }> {
  const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', sig, handler], {
    cwd: work,
    killAfterMs: 60_000,
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
  return { out: r.stdout, report: JSON.parse(rep.stdout) as Report, warnings: rep.stderr };
}

function children(rep: Report): Report['processes'] {
  return rep.processes.filter((p) => p.command.startsWith('child.js'));
}

for (const mode of ['cpu-prof', 'heap', 'prof']) {
  test(
    `${mode}: a child killed by SIGUSR2 (nodemon's restart) keeps its profile and still dies by SIGUSR2`,
    { timeout: 90_000 },
    async () => {
      const { out, report, warnings } = await run(mode, 'SIGUSR2');
      assert.match(out, /child 1 pid=\d+ code=null signal=SIGUSR2/);
      assert.match(out, /child 2 pid=\d+ code=null signal=SIGUSR2/);
      const kids = children(report);
      console.log(`${mode}: ${kids.map((k) => `${k.command} ${k.samples} samples`).join(', ')}`);
      assert.equal(kids.length, 2, JSON.stringify(report.processes));
      for (const k of kids) assert.ok(k.samples > 0, `${k.command}: ${k.samples} samples`);
      if (mode !== 'heap') assert.ok(report.functions.some((f) => f.name === 'busyChild' && f.self > 0.1));
      assert.doesNotMatch(warnings, /left no profile/);
    },
  );
}

test("cpu-prof: the app's own SIGUSR2 handler runs (and dies by re-raising), profile kept", { timeout: 90_000 }, async () => {
  const { out, report } = await run('cpu-prof', 'SIGUSR2', 'reraise');
  assert.equal(out.match(/cleanup/g)?.length, 2, out);
  assert.match(out, /child 1 pid=\d+ code=null signal=SIGUSR2/);
  for (const k of children(report)) assert.ok(k.samples > 0, `${k.command}: ${k.samples} samples`);
});

test("cpu-prof: an app's graceful SIGTERM handler is not cut short; its exit code stays its own", { timeout: 90_000 }, async () => {
  const { out, report } = await run('cpu-prof', 'SIGTERM', 'graceful');
  assert.equal(out.match(/graceful/g)?.length, 2, out);
  assert.match(out, /child 1 pid=\d+ code=3 signal=null/);
  for (const k of children(report)) assert.ok(k.samples > 0, `${k.command}: ${k.samples} samples`);
});

test('cpu-prof: a child killed by SIGHUP keeps its profile; one killed by SIGKILL is named in a warning', { timeout: 90_000 }, async () => {
  const hup = await run('cpu-prof', 'SIGHUP');
  assert.match(hup.out, /child 1 pid=\d+ code=null signal=SIGHUP/);
  for (const k of children(hup.report)) assert.ok(k.samples > 0);
  const kill = await run('cpu-prof', 'SIGKILL');
  assert.match(kill.out, /child 1 pid=\d+ code=null signal=SIGKILL/);
  const lost = kill.warnings.match(/process \d+ \(child\.js \d none\) left no profile/g) ?? [];
  console.log(`SIGKILL: ${lost.length} warnings: ${lost.join('; ')}`);
  assert.equal(lost.length, 2, kill.warnings);
});
