// Heap mode for real: `node-flame profile --mode heap` on a fixture with one function that keeps what
// it allocates and one that only makes garbage, read back by `report` and compared by `diff`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fixtures } from '../helpers/paths';
import { freePort } from '../helpers/net';
import { AttachSession, listTargets, makeRunDir, parseAddress, saveAttachRun } from '../../src/launch/inspector';
import { loadProfile } from '../../src/core/importers';
import { runCli, runDirOf, runJson } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-heap-'));
after(() => rmSync(work, { recursive: true, force: true }));
const fixture = join(fixtures, 'heap', 'keep-and-garbage.js');

interface Fn {
  name: string;
  file: string | null;
  line: number | null;
  self: number;
}
interface Report {
  format: string;
  unit: string;
  samples: number;
  sampleType: string;
  functions: Fn[];
}

/**
 * At 32 KiB, not the default 256 KiB: these runs weigh bytes (10 MB kept against 110 MB of garbage; a short run keeps
 * 2.8 MB), which the default samples ~11 times. The default is what heap-batch.test.ts runs.
 */
async function heapRun(args: string[], rounds = 20): Promise<string> {
  const r = await runCli(
    ['profile', '--mode', 'heap', '--heap-interval', '32768', '--no-report', '--out', work, ...args, '--', 'node', fixture, String(rounds)],
    {
      cwd: work,
      killAfterMs: 60_000,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  return runDirOf(r);
}

async function report(path: string): Promise<Report> {
  const r = await runCli(['report', path, '--format', 'json', '--top', '20'], { cwd: work, killAfterMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

const fn = (rep: Report, name: string) => rep.functions.find((f) => f.name === name);

test('heap mode, allocated: both functions at their file:line in bytes, the garbage maker on top', async () => {
  const dir = await heapRun([]);
  assert.equal(runJson(dir).mode, 'heap');
  assert.equal(readdirSync(dir).filter((n) => n.endsWith('.heapprofile')).length, 1);
  const rep = await report(dir);
  assert.equal(rep.format, 'heapprofile');
  assert.equal(rep.unit, 'bytes');
  assert.equal(rep.sampleType, 'allocated');
  const keep = fn(rep, 'keepRows');
  const garbage = fn(rep, 'makeGarbage');
  assert.ok(keep && garbage, JSON.stringify(rep.functions.slice(0, 5)));
  assert.deepEqual([keep.file, keep.line, garbage.file, garbage.line], [fixture, 7, fixture, 11]);
  // 200 000 garbage rows against 20 000 kept ones, 64 elements each.
  assert.equal(rep.functions[0].name, 'makeGarbage');
  assert.ok(garbage.self > 5 * keep.self, `makeGarbage ${garbage.self} vs keepRows ${keep.self}`);
  // Shares of all sampled bytes; 20 000 × 64 × 8 bytes kept at the least.
  assert.ok(keep.self * rep.samples > 20000 * 64 * 8 * 0.7, `keepRows ${keep.self * rep.samples} bytes`);
});

test('heap mode, live: what is still reachable at exit puts the keeping function on top', async () => {
  const rep = await report(await heapRun(['--heap-samples', 'live']));
  assert.equal(rep.sampleType, 'live');
  assert.equal(rep.functions[0].name, 'keepRows');
  assert.equal(rep.functions[0].line, 7);
  assert.ok(rep.functions[0].self > 0.8, `keepRows share ${rep.functions[0].self}`);
  assert.ok((fn(rep, 'makeGarbage')?.self ?? 0) < 0.05);
});

test('heap mode follows forked processes: one .heapprofile each, read as one profile', async () => {
  const parent = join(work, 'parent.js');
  writeFileSync(
    parent,
    `const { fork } = require('child_process');\nfork(${JSON.stringify(fixture)}, ['10']).on('exit', () => console.log('child done'));\n`,
  );
  const r = await runCli(['profile', '--mode', 'heap', '--no-report', '--out', work, '--', 'node', parent], {
    cwd: work,
    killAfterMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const dir = runDirOf(r);
  assert.equal(readdirSync(dir).filter((n) => n.endsWith('.heapprofile')).length, 2);
  const rep = await report(dir);
  assert.equal(rep.unit, 'bytes');
  assert.ok(fn(rep, 'keepRows') && fn(rep, 'makeGarbage'), 'the child process is in the profile');
});

test('diff of a short and a long live run: the keeping function grew, in bytes', async () => {
  const file = (dir: string) => join(dir, readdirSync(dir).find((n) => n.endsWith('.heapprofile'))!);
  const short = file(await heapRun(['--heap-samples', 'live'], 5));
  const long = file(await heapRun(['--heap-samples', 'live'], 40));
  const r = await runCli(['diff', short, long, '--format', 'json'], { cwd: work, killAfterMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout) as { unit?: string; changes: { name: string; beforeValue: number; afterValue: number; growth: number }[] };
  assert.equal(d.unit, 'bytes');
  const keep = d.changes.find((c) => c.name === 'keepRows');
  assert.ok(keep, r.stdout.slice(0, 500));
  // 5 000 rows then 40 000: about eight times the bytes.
  assert.ok(keep.afterValue > 5 * keep.beforeValue, JSON.stringify(keep));
  assert.equal(keep.growth, keep.afterValue - keep.beforeValue);
  const text = await runCli(['diff', short, long], { cwd: work, killAfterMs: 60_000 });
  assert.match(text.stdout, /\+\d+(\.\d+)? MB\s+keepRows/);
});

test(
  'Profile Running Process in heap mode: a sampling heap profile over the inspector, saved as profile.heapprofile',
  { timeout: 60_000 },
  async (t) => {
    const script = join(work, 'attached.js');
    writeFileSync(
      script,
      `const kept = [];
function keepRows() { for (let i = 0; i < 200; i++) kept.push(new Array(64).fill(i)); }
function makeGarbage() { let s = 0; for (let i = 0; i < 2000; i++) s += new Array(64).fill(i).length; return s; }
setInterval(() => { keepRows(); makeGarbage(); }, 5);
`,
    );
    const port = await freePort();
    const child = spawn(process.execPath, [`--inspect=127.0.0.1:${port}`, script], { stdio: ['ignore', 'ignore', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    await new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => /Debugger listening/.test(String(d)) && resolve()));
    const [target] = await listTargets(parseAddress(`127.0.0.1:${port}`));
    const session = await AttachSession.start(target, { heap: { samplingInterval: 16384, samples: 'allocated' }, chunkMs: 500 });
    await new Promise((r) => setTimeout(r, 1500));
    const result = await session.stop();
    assert.ok(result.heapProfile && !result.profile && result.samples > 0, `samples: ${result.samples}`);
    const dir = await makeRunDir(work);
    const saved = await saveAttachRun(dir, { ...result, heapProfile: result.heapProfile }, { target, stoppedBy: 'user' });
    assert.match(saved.profilePath, /profile\.heapprofile$/);
    const p = await loadProfile(saved.profilePath, { sourceMaps: false });
    assert.deepEqual([p.format, p.meta.unit, p.meta.sampleType], ['heapprofile', 'bytes', 'allocated']);
    const rep = await report(saved.profilePath);
    const garbage = fn(rep, 'makeGarbage');
    const keep = fn(rep, 'keepRows');
    assert.ok(garbage && keep, JSON.stringify(rep.functions.slice(0, 5)));
    assert.deepEqual([garbage.file, garbage.line, keep.line], [script, 3, 2]);
    assert.ok(garbage.self > keep.self, `makeGarbage ${garbage.self} vs keepRows ${keep.self}`);
  },
);

test('heap mode samples worker threads too: each thread its own .heapprofile and level', async () => {
  const script = join(work, 'workers.js');
  writeFileSync(
    script,
    `const { Worker, isMainThread } = require('worker_threads');
if (isMainThread) new Worker(__filename).on('exit', () => console.log('worker done'));
else {
  const kept = [];
  function workerKeep() { for (let i = 0; i < 20000; i++) kept.push(new Array(64).fill(i)); }
  workerKeep();
  globalThis.held = { kept, workerKeep };
}
`,
  );
  const r = await runCli(['profile', '--mode', 'heap', '--no-report', '--out', work, '--', 'node', script], {
    cwd: work,
    killAfterMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const dir = runDirOf(r);
  const files = readdirSync(dir).filter((n) => n.endsWith('.heapprofile'));
  assert.deepEqual(files.map((n) => /\.(\d+)\.001\.heapprofile$/.exec(n)?.[1]).sort(), ['0', '1']);
  const rep = await report(dir);
  const keep = fn(rep, 'workerKeep');
  assert.ok(keep && keep.line === 5 && keep.self > 0.5, JSON.stringify(rep.functions.slice(0, 3)));
});

test('heap mode turns TurboFan inlining off: bytes stay with the function that allocated them', async () => {
  const inlined = join(fixtures, 'heap', 'inlined.js');
  // Control: V8's own --heap-prof with inlining on gives keepRow's rows to the loop they were inlined into.
  const plain = mkdtempSync(join(tmpdir(), 'nf-heap-plain-'));
  after(() => rmSync(plain, { recursive: true, force: true }));
  spawnSync(process.execPath, ['--heap-prof', `--heap-prof-dir=${plain}`, '--heap-prof-interval=32768', inlined]);
  const control = await report(join(plain, readdirSync(plain).find((n) => n.endsWith('.heapprofile'))!));
  assert.notEqual(control.functions[0].name, 'keepRow', `V8 still inlines here: ${JSON.stringify(control.functions[0])}`);
  const r = await runCli(['profile', '--mode', 'heap', '--heap-samples', 'live', '--no-report', '--out', work, '--', 'node', inlined], {
    cwd: work,
    killAfterMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const rep = await report(runDirOf(r));
  assert.deepEqual([rep.functions[0].name, rep.functions[0].line], ['keepRow', 6]);
  assert.ok(rep.functions[0].self > 0.8, JSON.stringify(rep.functions.slice(0, 3)));
  // The profiler's own look at the main module's end allocates the profile it reads; those bytes are not the app's.
  assert.deepEqual(
    rep.functions.filter((f) => f.file === 'node:inspector').map((f) => `${f.name} ${f.self}`),
    [],
  );
  // Nor are the preload's start-up bytes (a CI run: hookVm and the bundle's top level, 25 % of this run's 8 samples).
  assert.deepEqual(
    rep.functions.filter((f) => /preload-stop\.js$/.test(f.file ?? '') && f.self > 0).map((f) => `${f.name} ${f.self}`),
    [],
  );
});
