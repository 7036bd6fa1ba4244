// Real `node-flame profile` runs against what another local user or a leftover process could do: the node shim's
// folder re-created by someone else, a process that outlives its run, the CLI SIGKILLed mid-run, and a
// working directory whose path holds `%p` (which V8 expands in --logfile).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { leftovers, marker, runCli, runDirOf, runJson } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';

const work = mkdtempSync(join(tmpdir(), 'nf-launch-hard-'));
after(() => rmSync(work, { recursive: true, force: true }));

const linux = process.platform === 'linux';
const hasPerf = !perfCannotRecord;
// Running a command as another user (nobody) needs root and setpriv.
const asNobody = (args: string[]) =>
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...args], { encoding: 'utf8' });
const canSwitchUser = linux && process.getuid?.() === 0 && asNobody(['true']).status === 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (check()) return true;
  return check();
}

/** Every name under `dir`, relative, recursively. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

test('a folder whose path holds %p and %t: --prof writes and reads its log there', { timeout: 120_000 }, async () => {
  const dir = join(work, 'app %p %t 100%%');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'busy.js'),
    `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nconst end = Date.now() + 500;\nwhile (Date.now() < end) fib(18);\n`,
  );
  const r = await runCli(['profile', '--mode', 'prof', '--', 'node', 'busy.js'], { cwd: dir, killAfterMs: 90_000 });
  assert.equal(r.code, 0, r.stderr);
  const run = runDirOf(r);
  assert.ok(run.startsWith(dir), run);
  const info = runJson<{ profiles: string[] }>(run);
  assert.ok(info.profiles.length >= 1, `profiles in run.json: ${JSON.stringify(info.profiles)}`);
  assert.ok(statSync(join(run, info.profiles[0])).size > 0);
  assert.match(r.stdout, /fib/, 'the report names the hot function');
  // Nothing went to a name V8 made from %p or %t.
  assert.deepEqual(
    readdirSync(work).filter((n) => n !== 'app %p %t 100%%'),
    [],
  );
  console.log(`[hardening] %p folder: ${info.profiles.length} log(s) in ${run}`);
});

test(
  'the node shim lives where no other user can create it; a process outliving the run neither finds it nor writes into the run',
  { timeout: 120_000, skip: !linux },
  async () => {
    const dir = join(work, 'shim');
    mkdirSync(dir);
    // Folders any user may enter (as a project usually is): the run folder's own permissions must keep others out.
    chmodSync(work, 0o755);
    const report = join(work, 'survivor.json');
    writeFileSync(
      join(dir, 'survivor.js'),
      `require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv, path: process.env.PATH }));\n` +
        `setTimeout(() => {}, 1500);\n`,
    );
    writeFileSync(join(dir, 'first.js'), `console.log('PATH0=' + process.env.PATH.split(':')[0]);\n`);
    // The survivor: a shell in its own session (no Node process, so not recorded, not killed), which starts
    // `node` by name after the run ended, with the run's PATH, NODE_OPTIONS and NODE_FLAME_RUN_DIR. The first shell
    // waits until the survivor is in its own session: the run kills what is left in the app's group when the first
    // shell ends, and a forked child not yet detached was killed with it (the test failed 3 runs in 5 under load).
    const script =
      `node first.js; setsid sh -c 'touch detached; sleep 2; node survivor.js' >/dev/null 2>&1 < /dev/null & ` +
      `while [ ! -e detached ]; do sleep 0.05; done`;
    const r = await runCli(['profile', '--mode', 'cpu-prof', '--out', join(dir, 'runs'), '--', 'sh', '-c', script], {
      cwd: dir,
      killAfterMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const run = runDirOf(r);
    const shim = /PATH0=(.+)/.exec(r.stdout)?.[1]?.trim();
    assert.ok(shim, r.stdout);
    assert.equal(shim, join(run, '.shim'), 'the shim folder is inside the run folder');
    assert.equal(existsSync(shim), false, 'and removed when the run ended');
    assert.equal(existsSync(join(run, '.running')), false, 'the run is marked finished');
    const files = tree(run);

    if (canSwitchUser) {
      // The old place, /tmp/node-flame-shim-XXXXXX, could be made again by anyone; the new one cannot.
      const old = join('/tmp', `node-flame-shim-${process.pid}`);
      const oldTry = asNobody(['mkdir', old]);
      const newTry = asNobody(['mkdir', '-p', shim]);
      rmSync(old, { recursive: true, force: true });
      console.log(
        `[hardening] as nobody: mkdir ${old} → exit ${oldTry.status}; mkdir ${shim} → exit ${newTry.status} ${newTry.stderr.trim()}`,
      );
      assert.equal(oldTry.status, 0, 'the old shim place was open to every user');
      assert.notEqual(newTry.status, 0, 'another user cannot create the shim folder');
      assert.equal(existsSync(shim), false);
    }

    // It sleeps 2 s, then starts node: on a loaded machine (CI-14) that took more than 10 s.
    assert.ok(await until(() => existsSync(report), 30_000), 'the survivor ran');
    const s = JSON.parse(readFileSync(report, 'utf8')) as { pid: number; execArgv: string[]; path: string };
    await until(() => !existsSync(`/proc/${s.pid}`), 5_000);
    console.log(
      `[hardening] survivor pid ${s.pid}: execArgv ${JSON.stringify(s.execArgv)}; run folder ${files.length} names before, ${tree(run).length} after`,
    );
    assert.ok(!s.execArgv.some((a) => a.startsWith('--cpu-prof')), 'the survivor ran the real node, not the shim');
    assert.deepEqual(tree(run), files, 'the survivor wrote nothing into the finished run');
  },
);

/** Starts `node-flame profile` in the background; resolves its stderr once `ready` matches. */
function startCli(args: string[], cwd: string, ready: RegExp): Promise<{ pid: number; out: () => string }> {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (ready.test(out)) {
        clearInterval(t);
        resolve({ pid: child.pid!, out: () => out });
      }
    }, 50);
    child.on('exit', () => {
      clearInterval(t);
      reject(new Error(`the CLI ended first:\n${out}`));
    });
  });
}

for (const mode of ['cpu-prof', 'perf'] as const)
  test(
    `${mode}: the CLI SIGKILLed mid-run: its app notices and ends, leaving nothing in /tmp`,
    { timeout: 120_000, skip: !linux || (mode === 'perf' && !hasPerf) },
    async () => {
      const dir = join(work, `killed-${mode}`);
      mkdirSync(dir);
      const mark = marker('nfkill');
      writeFileSync(
        join(dir, 'server.js'),
        `require('http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () => console.log('listening'));\n`,
      );
      // A command run (through a shell), so the node shim is in play too.
      const c = await startCli(
        ['profile', '--mode', mode, '--out', join(dir, 'runs'), '--', 'sh', '-c', `node server.js ${mark}`],
        dir,
        /listening/,
      );
      const run = join(dir, 'runs', readdirSync(join(dir, 'runs')).find((n) => n.endsWith(mode))!);
      process.kill(c.pid, 'SIGKILL');
      const t0 = Date.now();
      const gone = await until(() => leftovers(mark) === '', 15_000);
      const ms = Date.now() - t0;
      // The run's processes recorded themselves: their /tmp/perf-<pid>.map (perf mode) must be gone too.
      const pids = readdirSync(join(run, 'processes')).map((n) => Number(n.split('.')[0]));
      const left = pids.map((p) => `perf-${p}.map`).filter((n) => existsSync(join('/tmp', n)));
      console.log(
        `[hardening] ${mode}: CLI SIGKILLed; the app${mode === 'perf' ? ' and perf' : ''} (pids ${pids.join(', ')}) ended ${gone ? `after ${ms} ms` : 'NOT within 15 s'}; left in /tmp: ${JSON.stringify(left)}`,
      );
      assert.ok(gone, `left running: ${leftovers(mark)}`);
      assert.ok(pids.length >= 1, 'the app recorded itself');
      assert.deepEqual(left, [], 'no perf map left in /tmp');
      // The shim was in the run folder (the CLI could not remove it): nothing of it in /tmp.
      assert.ok(existsSync(join(run, '.shim', 'node')), 'the shim is in the run folder');
    },
  );
