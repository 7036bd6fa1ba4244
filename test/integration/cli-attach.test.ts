// `node-flame attach` on a real running node process: by pid (SIGUSR1) and by inspector address, CPU and
// heap, stopped by --duration or by Ctrl+C (SIGINT to the CLI), and the errors for targets it cannot profile.
import { test, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/net';
import { runCli, runDirOf, runJson, type CliRun } from '../helpers/cli';
import { cli } from '../helpers/paths';
import type { JsonReport } from '../../src/core/exporters/json';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'nf-cli-attach-')));
after(() => rmSync(work, { recursive: true, force: true }));

// Work in slices with setImmediate between them, as a server does: the hot functions sit on known lines.
const script = join(work, 'spin.js');
writeFileSync(
  script,
  `'use strict';
function hotLoop() {
  let x = 0;
  for (let i = 0; i < 2e5; i++) x += Math.sqrt(i) * Math.sin(i);
  return x;
}
function allocHot() {
  const keep = [];
  for (let i = 0; i < 3000; i++) keep.push({ i, s: 'v' + i });
  return keep.length;
}
function tick() { hotLoop(); allocHot(); setImmediate(tick); }
tick();
console.log('SPINNING');
`,
);
const HOT_LOOP_LINE = 2;
const ALLOC_LINE = 7;

interface Target {
  child: ChildProcess;
  pid: number;
}

/** Starts spin.js with `nodeArgs` and waits until it runs; killed when the test ends. */
async function startSpin(t: { after: (fn: () => void) => void }, nodeArgs: string[]): Promise<Target> {
  const child = spawn(process.execPath, [...nodeArgs, script], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => (out += d) && /SPINNING/.test(out) && resolve());
    child.on('exit', (c) => reject(new Error(`spin.js exited ${c}`)));
  });
  return { child, pid: child.pid! };
}

function attach(args: string[], opts: { interruptWhen?: RegExp; interruptDelayMs?: number } = {}): Promise<CliRun> {
  return runCli(['attach', '--out', join(work, 'runs'), ...args], { cwd: work, killAfterMs: 60_000, ...opts });
}

function json(r: CliRun): JsonReport {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}

function top(j: JsonReport): string {
  return j.functions
    .slice(0, 5)
    .map((f) => `${f.name}@${f.file}:${f.line} ${f.self}`)
    .join(', ');
}

test(
  'cpu by pid: SIGUSR1 opens the inspector, --duration 2 records, the text report names hotLoop at spin.js:2',
  { timeout: 60_000 },
  async (t) => {
    // --inspect-port only says where SIGUSR1 opens the inspector (not 9229, which a parallel run may hold).
    const s = await startSpin(t, [`--inspect-port=127.0.0.1:${await freePort()}`]);
    const started = Date.now();
    const r = await attach([String(s.pid), '--duration', '2']);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`Switching on the inspector of process ${s.pid}`));
    assert.match(
      r.stdout,
      new RegExp(`^\\s+\\d+\\s+\\d+\\.\\d%\\s+\\d+\\.\\d%\\s+hotLoop ${script.replace(/[.\\/]/g, '\\$&')}:${HOT_LOOP_LINE}:`, 'm'),
    );
    const dir = runDirOf(r);
    assert.match(dir, /[\\/]\d{8}-\d{6}-attach$/);
    const info = runJson<{
      mode: string;
      stoppedBy: string;
      target: { pid: number };
      profiles: string[];
      durationMs: number;
      samples: number;
    }>(dir);
    assert.equal(info.mode, 'attach');
    assert.equal(info.stoppedBy, 'duration');
    assert.equal(info.target.pid, s.pid);
    assert.deepEqual(info.profiles, ['profile.cpuprofile']);
    assert.ok(info.durationMs >= 1900 && info.durationMs < 4000, `recorded ${info.durationMs} ms`);
    assert.ok(info.samples > 100, `${info.samples} samples`);
    assert.ok(took < 15_000, `attach took ${took} ms`);
    assert.equal(s.child.exitCode, null, 'the process keeps running after the attach');
    t.diagnostic(`cpu by pid: ${info.samples} samples in ${info.durationMs} ms; the CLI ran ${took} ms`);
  },
);

test(
  'attach --live: the top functions every second while recording (plain text to a pipe), the chunks in the run folder',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    const s = await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
    const r = await attach([`127.0.0.1:${port}`, '--live', '--duration', '5', '--no-report']);
    assert.equal(r.code, 0, r.stderr);
    const tables = r.stdout.split(/^live · /m).slice(1);
    assert.ok(tables.length >= 2, `a table a second while recording: ${tables.length}\n${r.stdout}`);
    assert.ok(!r.stdout.includes('\x1b'), 'no escape codes to a pipe');
    const hot = tables.map((tb) => /%\s+\S+%\s+(\S+)/.exec(tb.split('\n')[2] ?? '')?.[1]);
    assert.equal(hot[hot.length - 1], 'hotLoop', `the last table's top row: ${tables[tables.length - 1]}`);
    const dir = runDirOf(r);
    const lines = readFileSync(join(dir, `live-${s.pid}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    const info = runJson<{ samples: number; parts: number }>(dir);
    assert.equal(info.parts, lines.length, 'every piece is a chunk of the live file');
    assert.ok(info.parts >= 3, `a piece a second: ${info.parts}`);
    const chunkSamples = lines.reduce((n, l) => n + (JSON.parse(l).profile.samples?.length ?? 0), 0);
    assert.equal(info.samples, chunkSamples, "the final profile's samples are the chunks'");
    t.diagnostic(`attach --live: ${tables.length} tables, ${info.parts} chunks, ${info.samples} samples`);
  },
);

test('cpu by host:port of an app started with --inspect: json report, hotLoop on top', { timeout: 60_000 }, async (t) => {
  const port = await freePort();
  await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
  const j = json(await attach([`127.0.0.1:${port}`, '--duration', '2', '--format', 'json', '--top', '5']));
  assert.equal(j.unit, 'samples');
  assert.equal(j.functions.length, 5);
  const [first] = j.functions;
  assert.deepEqual([first.name, first.file, first.line], ['hotLoop', script, HOT_LOOP_LINE], top(j));
  assert.ok(first.self > 0.5, top(j));
  t.diagnostic(`cpu by port: ${j.samples} samples, ${top(j)}`);
});

test('heap by pid: the allocating function at spin.js:7, in bytes', { timeout: 60_000 }, async (t) => {
  const s = await startSpin(t, [`--inspect-port=127.0.0.1:${await freePort()}`]);
  const r = await attach([String(s.pid), '--profile', 'heap', '--duration', '2', '--heap-interval', '4096']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Unit: bytes/);
  assert.match(
    r.stdout,
    new RegExp(`^\\s*\\d+\\s+\\d+\\.\\d%\\s+\\d+\\.\\d%\\s+allocHot ${script.replace(/[.\\/]/g, '\\$&')}:${ALLOC_LINE}:`, 'm'),
  );
  const dir = runDirOf(r);
  assert.deepEqual(runJson<{ profiles: string[] }>(dir).profiles, ['profile.heapprofile']);
  // The run folder reads back with report, as the editor's does.
  const again = await runCli(['report', dir, '--format', 'json', '--top', '3'], { cwd: work, killAfterMs: 60_000 });
  const j = json(again);
  assert.equal(j.unit, 'bytes');
  assert.deepEqual([j.functions[0].name, j.functions[0].file, j.functions[0].line], ['allocHot', script, ALLOC_LINE], top(j));
  assert.ok(j.samples > 100_000, `${j.samples} bytes sampled`);
  t.diagnostic(`heap by pid: ${j.samples} bytes, ${top(j)}`);
});

test(
  'heap by host:port, --heap-samples live: bytes still held (allocHot keeps nothing, so it is not on top)',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
    const allocated = json(await attach([`127.0.0.1:${port}`, '--profile', 'heap', '--duration', '2', '--format', 'json']));
    assert.equal(allocated.unit, 'bytes');
    assert.equal(allocated.functions[0].name, 'allocHot', top(allocated));
    const live = json(
      await attach([`127.0.0.1:${port}`, '--profile', 'heap', '--heap-samples', 'live', '--duration', '2', '--format', 'json']),
    );
    assert.equal(live.unit, 'bytes');
    assert.ok(live.samples < allocated.samples / 4, `live ${live.samples} bytes vs allocated ${allocated.samples}`);
    t.diagnostic(`heap by port: allocated ${allocated.samples} bytes, live ${live.samples} bytes`);
  },
);

test(
  '--load runs a command while recording and recording stops when it ends (stoppedBy load, its exit code in run.json)',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
    const started = Date.now();
    const r = await attach([`127.0.0.1:${port}`, '--load', 'sleep 1.5; echo load-finished', '--duration', '30', '--no-report']);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', '--no-report prints nothing on standard output');
    assert.match(r.stderr, /load-finished/);
    const info = runJson<{ stoppedBy: string; load: { command: string; exitCode: number | null }; durationMs: number }>(runDirOf(r));
    assert.equal(info.stoppedBy, 'load');
    assert.deepEqual(info.load, { command: 'sleep 1.5; echo load-finished', exitCode: 0 });
    assert.ok(info.durationMs >= 1400 && took < 20_000, `recorded ${info.durationMs} ms, ran ${took} ms`);
  },
);

test(
  'Ctrl+C (SIGINT to the CLI) stops recording a ws:// URL and still writes the profile and the report',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
    const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const r = await attach([list[0].webSocketDebuggerUrl, '--format', 'json'], {
      interruptWhen: /Recording .* until Ctrl\+C/,
      interruptDelayMs: 1500,
    });
    const j = json(r);
    assert.equal(j.functions[0].name, 'hotLoop', top(j));
    assert.equal(j.functions[0].line, HOT_LOOP_LINE);
    const info = runJson<{ stoppedBy: string; durationMs: number }>(runDirOf(r));
    assert.equal(info.stoppedBy, 'user');
    assert.ok(info.durationMs >= 1000, `recorded ${info.durationMs} ms`);
    t.diagnostic(`Ctrl+C after 1.5 s: ${j.samples} samples in ${info.durationMs} ms`);
  },
);

test(
  'a pid that is not running, a process that is not node, an inspector nobody serves: exit 2 and what is wrong',
  { timeout: 60_000 },
  async (t) => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.on('exit', r));
    const dead = await attach([String(gone.pid), '--duration', '1']);
    assert.equal(dead.code, 2, dead.stderr);
    assert.equal(dead.stderr, `node-flame attach: Process ${gone.pid} is not running.\n`);
    assert.equal(dead.stdout, '');

    const sleeper = spawn('sleep', ['30']);
    t.after(() => sleeper.kill('SIGKILL'));
    const notNode = await attach([String(sleeper.pid), '--duration', '1']);
    assert.equal(notNode.code, 2, notNode.stderr);
    assert.equal(notNode.stderr, `node-flame attach: Process ${sleeper.pid} is not a Node.js process.\n`);
    assert.equal(sleeper.exitCode, null, 'no signal reached the other program');

    const closed = await freePort();
    const refused = await attach([`127.0.0.1:${closed}`, '--duration', '1']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`^node-flame attach: Nothing is listening on 127\\.0\\.0\\.1:${closed}\\.`));

    // Localized like every CLI message.
    const ko = await runCli(['attach', String(gone.pid)], { cwd: work, killAfterMs: 30_000, env: { NODE_FLAME_LANG: 'ko' } });
    assert.equal(ko.code, 2);
    assert.equal(ko.stderr, `node-flame attach: 프로세스 ${gone.pid}이(가) 실행 중이 아닙니다.\n`);

    const usage = await attach(['--profile', 'disk', '1']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--profile is cpu or heap, got "disk"/);
  },
);

/** `node-flame attach --live` under script(1), which gives the CLI a terminal as stdin (marks and restarts are read only from one) and passes our writes into it. */
function attachOnTerminal(t: TestContext, args: string[]) {
  const cmd = [process.execPath, cli, 'attach', ...args].map((w) => `'${w}'`).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    cwd: work,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_FLAME_LANG: 'en' },
  });
  t.after(() => child.kill('SIGKILL'));
  const seen = { out: '', ended: false };
  child.stdout!.on('data', (d) => (seen.out += d));
  child.stderr!.on('data', (d) => (seen.out += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  void closed.then(() => (seen.ended = true));
  const until = async (ok: () => boolean) => {
    while (!ok() && !seen.ended) await new Promise((r) => setTimeout(r, 100));
  };
  return { child, seen, closed, until };
}

test('attach --live on a terminal: a line "m before the fix" marks the moment; run.json keeps the mark', { timeout: 60_000 }, async (t) => {
  const port = await freePort();
  await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
  const runs = join(work, 'runs-marks');
  const term = attachOnTerminal(t, ['--out', runs, `127.0.0.1:${port}`, '--live', '--duration', '4', '--no-report']);
  // Once the first table is drawn, the recording runs.
  await term.until(() => term.seen.out.includes('live · '));
  term.child.stdin!.write('m before the fix\n');
  const code = await term.closed;
  assert.equal(code, 0, term.seen.out);
  assert.match(term.seen.out, /\bmarked\b/);
  const dir = join(runs, readdirSync(runs)[0]);
  const info = runJson<{ events?: { kind: string; label?: string; at: string }[]; startedAt: string }>(dir);
  const marks = (info.events ?? []).filter((e) => e.kind === 'mark');
  assert.deepEqual(
    marks.map((e) => e.label),
    ['before the fix'],
    JSON.stringify(info.events),
  );
  assert.ok(Date.parse(marks[0].at) > Date.parse(info.startedAt), 'the mark is after the recording started');
  t.diagnostic(`attach --live mark at ${marks[0].at} (recording from ${info.startedAt})`);
});

test(
  'attach --live on a terminal: a line "r" restarts the table there (fewer samples, marked on the Timeline)',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    await startSpin(t, [`--inspect=127.0.0.1:${port}`]);
    const runs = join(work, 'runs-restart');
    const term = attachOnTerminal(t, ['--out', runs, `127.0.0.1:${port}`, '--live', '--duration', '7', '--no-report']);
    const counts = () =>
      [...term.seen.out.matchAll(/live · \d+ s · (\d+) samples[^\n]*/g)].map((m) => ({
        n: Number(m[1]),
        since: m[0].includes('since the restart'),
      }));
    // Two tables of the whole run, then the restart.
    await term.until(() => counts().length >= 2);
    const before = counts().at(-1)!;
    term.child.stdin!.write('r\n');
    await term.until(() => counts().some((c) => c.since));
    const after = counts().find((c) => c.since);
    const code = await term.closed;
    assert.equal(code, 0, term.seen.out);
    assert.match(term.seen.out, /window restarted/);
    assert.ok(after, `a table since the restart: ${term.seen.out.slice(-600)}`);
    assert.ok(!before.since && after.n < before.n, `samples: ${before.n} before the restart, ${after.n} in the first table after it`);
    const dir = join(runs, readdirSync(runs)[0]);
    const info = runJson<{ events?: { kind: string; label?: string }[] }>(dir);
    assert.deepEqual(
      (info.events ?? []).filter((e) => e.kind === 'mark').map((e) => e.label),
      ['window restarted'],
    );
    t.diagnostic(`samples ${before.n} before the restart, ${after.n} in the first table after it`);
  },
);
