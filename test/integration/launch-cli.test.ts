// Runs `node-flame profile` for real on small programs: each mode, Stop (SIGINT to the CLI), load
// commands, and the failure messages; afterwards no process of the run may be left.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { leftovers, marker as newMarker, runCli as runCliIn, runDirOf, runJson, type CliRun } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';

const work = mkdtempSync(join(tmpdir(), 'nf-launch-'));
after(() => rmSync(work, { recursive: true, force: true }));

const hasPerf = !perfCannotRecord;

writeFileSync(
  join(work, 'busy.js'),
  `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 600;
while (Date.now() < end) fib(18);
console.log('busy done');
`,
);
writeFileSync(
  join(work, 'server.js'),
  `const http = require('http');
function work() { let s = 0; for (let i = 0; i < 2e5; i++) s += Math.sqrt(i); return s; }
const srv = http.createServer((req, res) => res.end(String(work())));
srv.listen(0, '127.0.0.1', () => console.log('listening on http://localhost:' + srv.address().port));
`,
);
writeFileSync(join(work, 'crash.js'), `console.log('starting');\nthrow new Error('boom at startup');\n`);
writeFileSync(join(work, 'silent-server.js'), `require('http').createServer((q, r) => r.end()).listen(0);\n`);
writeFileSync(join(work, 'stuck.js'), `console.log('spinning on port 1');\nfor (;;) {}\n`);
writeFileSync(
  join(work, 'workers.js'),
  `const { Worker } = require('worker_threads');
const w = new Worker('let s = 0; const e = Date.now() + 300; while (Date.now() < e) s += Math.random();', { eval: true });
w.on('exit', () => console.log('worker done'));
`,
);

const marker = () => newMarker('nfmark');

/** `node-flame profile` in the work folder, killed after 60 s; `interruptWhen` sends SIGINT once the output matches (like Ctrl+C). */
function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; interruptWhen?: RegExp; interruptDelayMs?: number } = {},
): Promise<CliRun> {
  return runCliIn(['profile', ...args], { ...opts, cwd: opts.cwd ?? work, killAfterMs: 60_000 });
}

test('cpu-prof: a script that ends by itself → run folder, run.json, maps, text report', async () => {
  const mark = marker();
  const r = await runCli(['--mode', 'cpu-prof', '--out', join(work, 'runs'), '--', 'node', 'busy.js', mark]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /busy done/);
  const dir = runDirOf(r);
  assert.match(dir, /[\\/]\d{8}-\d{6}-cpu-prof$/);
  const info = runJson(dir);
  assert.equal(info.mode, 'cpu-prof');
  assert.equal(info.exitCode, 0);
  assert.equal(info.stoppedBy, 'exit');
  assert.match(String(info.nodeVersion), /^v\d+\./);
  // profiled in-process by the preload, so a signal's death still writes the profile (signal-death.test.ts)
  assert.ok(!(info.command as string[]).includes('--cpu-prof'));
  assert.ok(typeof info.durationMs === 'number' && info.durationMs > 300);
  const profiles = info.profiles as string[];
  assert.equal(profiles.length, 1);
  assert.match(profiles[0], /\.cpuprofile$/);
  if (process.platform === 'linux')
    assert.ok(
      readdirSync(dir).some((f) => /^proc-maps-\d+\.txt$/.test(f)),
      'maps captured',
    );
  // the text report of the profile, printed at the end
  assert.match(r.stdout, /fib .*busy\.js/);
  assert.equal(leftovers(mark), '');
});

test('prof: every isolate log lands in the run folder (not the cwd), main isolate first', async () => {
  const mark = marker();
  const r = await runCli(['--mode', 'prof', '--out', join(work, 'runs'), '--no-report', '--', 'node', 'workers.js', mark]);
  assert.equal(r.code, 0, r.stderr);
  const dir = runDirOf(r);
  const logs = readdirSync(dir).filter((f) => /^isolate-.*-v8\.log$/.test(f));
  assert.equal(logs.length, 2, `one log per isolate: ${logs.join(', ')}`);
  assert.deepEqual(
    readdirSync(work).filter((f) => f.endsWith('.log')),
    [],
    'nothing written into the app cwd',
  );
  const info = runJson(dir);
  const profiles = info.profiles as string[];
  assert.equal(profiles.length, 2);
  // the worker's log holds the worker bootstrap; the main isolate's does not
  const first = readFileSync(join(dir, profiles[0]), 'utf8');
  assert.doesNotMatch(first, /node:internal\/main\/worker_thread/);
  assert.match(readFileSync(join(dir, profiles[1]), 'utf8'), /node:internal\/main\/worker_thread/);
  assert.equal(leftovers(mark), '');
});

for (const mode of ['prof', 'cpu-prof', ...(hasPerf ? ['perf'] : [])]) {
  test(`${mode}: Stop (SIGINT to the CLI) ends a server gracefully and the profile is written`, async () => {
    const mark = marker();
    const r = await runCli(['--mode', mode, '--out', join(work, 'runs'), '--no-report', '--', 'node', 'server.js', mark], {
      interruptWhen: /listening on/,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const info = runJson(dir);
    assert.equal(info.stoppedBy, 'user');
    const profiles = info.profiles as string[];
    assert.ok(profiles.length >= 1, `a profile: ${readdirSync(dir).join(', ')}`);
    const expected = mode === 'perf' ? /^perf\.data$/ : mode === 'prof' ? /^isolate-.*-v8\.log$/ : /\.cpuprofile$/;
    assert.match(profiles[0], expected);
    if (mode === 'perf') {
      assert.ok(typeof info.nodePid === 'number', 'node pid (perf child) known');
      assert.ok(!existsSync(`/tmp/perf-${info.nodePid as number}.map`), 'perf map cleaned up');
      assert.ok(existsSync(join(dir, `perf-${info.nodePid as number}.map`)), 'JIT map kept in the run folder');
      assert.ok(existsSync(join(dir, `proc-maps-${info.nodePid as number}.txt`)), 'maps of the node process, not of perf');
    }
    assert.equal(leftovers(mark), '');
  });
}

if (hasPerf) {
  // A Stop soon after start (before any timer of the launcher fired) must still know the node process.
  test('perf: a Stop 100 ms after "listening" still keeps nodePid, the JIT map and the maps file', async () => {
    const mark = marker();
    const r = await runCli(['--mode', 'perf', '--out', join(work, 'runs'), '--no-report', '--', 'node', 'server.js', mark], {
      interruptWhen: /listening on/,
      interruptDelayMs: 100,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const info = runJson(dir);
    assert.equal(info.stoppedBy, 'user');
    assert.ok(typeof info.nodePid === 'number', `node pid (perf child) known: ${JSON.stringify(info)}`);
    assert.ok(
      existsSync(join(dir, `perf-${info.nodePid as number}.map`)),
      `JIT map kept in the run folder: ${readdirSync(dir).join(', ')}`,
    );
    assert.ok(existsSync(join(dir, `proc-maps-${info.nodePid as number}.txt`)), 'maps of the node process');
    assert.deepEqual(
      readdirSync('/tmp').filter((f) => f === `perf-${info.nodePid as number}.map`),
      [],
      'no /tmp/perf-<pid>.map left',
    );
    assert.equal(leftovers(mark), '');
  });
}

test("load command: the guide's Express app under load, then stopped; report shows pbkdf2Sync", async () => {
  const mark = marker();
  const port = String(20000 + (process.pid % 20000));
  const app = join(repoRoot, 'examples', 'express-auth');
  const r = await runCli(
    ['--mode', 'cpu-prof', '--out', join(work, 'runs'), '--load', `REQUESTS=20 sh load.sh ${mark}`, '--', 'node', 'app.js', mark],
    {
      cwd: app,
      env: { PORT: port },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\[load\] .*requests in/);
  const info = runJson(runDirOf(r));
  assert.equal(info.stoppedBy, 'load');
  assert.equal(info.port, Number(port));
  const load = info.load as { exitCode: number; requests?: number };
  assert.equal(load.exitCode, 0);
  assert.equal(load.requests, 20);
  assert.match(r.stdout, /pbkdf2Sync/);
  assert.equal(leftovers(mark), '');
});

test('app crash: exit code and last output lines in the message, still a profile', async () => {
  const mark = marker();
  const r = await runCli(['--mode', 'cpu-prof', '--out', join(work, 'runs'), '--no-report', '--', 'node', 'crash.js', mark]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /The app exited with code 1/);
  assert.match(r.stderr, /Last output:[\s\S]*boom at startup/);
  assert.equal(runJson(runDirOf(r)).exitCode, 1);
  assert.equal(leftovers(mark), '');
});

test('app exits at once while a load command waits: says the load did not run', async () => {
  const mark = marker();
  const r = await runCli([
    '--mode',
    'prof',
    '--out',
    join(work, 'runs'),
    '--no-report',
    '--load',
    `echo never-${mark}`,
    '--',
    'node',
    'crash.js',
    mark,
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /before it listened on a port, so the load command did not run/);
  assert.doesNotMatch(r.stdout, /never-/);
  assert.equal(leftovers(mark), '');
});

test('port never opens: clear error after the timeout, app stopped', async () => {
  const mark = marker();
  const r = await runCli([
    '--mode',
    'cpu-prof',
    '--out',
    join(work, 'runs'),
    '--no-report',
    '--load',
    'true',
    '--port-timeout',
    '1',
    '--',
    'node',
    'silent-server.js',
    mark,
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /did not print a port within 1 s.*--port/);
  assert.equal(runJson(runDirOf(r)).stoppedBy, 'port-timeout');
  assert.equal(leftovers(mark), '');
});

test('an app that cannot stop (busy loop) is killed after --stop-timeout; no process left', async () => {
  const mark = marker();
  const r = await runCli(['--mode', 'cpu-prof', '--out', join(work, 'runs'), '--stop-timeout', '1', '--', 'node', 'stuck.js', mark], {
    interruptWhen: /spinning/,
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /did not stop within 1 s and was killed/);
  assert.match(r.stderr, /No profile was written/);
  assert.equal(runJson(runDirOf(r)).signal, 'SIGKILL');
  assert.equal(leftovers(mark), '');
});

test('program not found and node not found: say what to fix', async () => {
  const a = await runCli(['--out', join(work, 'runs'), '--', 'node', 'missing.js']);
  assert.equal(a.code, 1);
  assert.match(a.stderr, /Program not found: .*missing\.js/);
  const b = await runCli(['--out', join(work, 'runs'), '--', join(work, 'no-such-node'), 'busy.js']);
  assert.equal(b.code, 1);
  assert.match(b.stderr, /Node\.js not found: .*no-such-node.*full path of node after "--"/);
});

test('usage errors exit 2', async () => {
  assert.equal((await runCli(['--mode', 'bogus', '--', 'node', 'busy.js'])).code, 2);
  assert.equal((await runCli(['--mode', 'prof'])).code, 2);
});
