import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v8logImporter } from '../../src/core/importers/v8log';
import { attributed, categoryWeights, functionStats, type Profile } from '../../src/core/model';

/** Runs a small program under `node --prof` in a fresh folder; returns the folder and its logs. */
function prof(source: string, nodeArgs: string[] = []): { dir: string; logs: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'nf-v8log-'));
  writeFileSync(join(dir, 'prog.js'), source);
  const r = spawnSync(process.execPath, ['--prof', ...nodeArgs, 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  const logs = readdirSync(dir)
    .filter((n) => n.startsWith('isolate-') && n.endsWith('.log'))
    .map((n) => join(dir, n));
  assert.ok(logs.length > 0, 'node wrote no log');
  return { dir, logs };
}

function selfOf(p: Profile, name: string): number {
  return functionStats(p.tree, p.frames.length)
    .filter((s) => p.frames[s.frame].name === name)
    .reduce((a, s) => a + s.self, 0);
}

function rawTicks(log: string, vmstate?: number): number {
  return readFileSync(log, 'latin1')
    .split('\n')
    .filter((l) => l.startsWith('tick,') && (vmstate === undefined || l.split(',')[5] === String(vmstate))).length;
}

test('code moves (--compact-on-every-full-gc) keep JS attributed', async () => {
  const { dir, logs } = prof(
    `function work(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * 31) % 17; return s; }
const keep = [];
const end = Date.now() + 800; let t = 0;
while (Date.now() < end) { t += work(2e4); keep.push(new Array(1000).fill(t)); if (keep.length > 50) { keep.length = 0; globalThis.gc(); } }
`,
    ['--expose-gc', '--compact-on-every-full-gc'],
  );
  try {
    assert.match(readFileSync(logs[0], 'latin1'), /^code-move,/m, 'the run moved no code');
    const p = await v8logImporter.load(logs[0], {});
    assert.equal(p.tree.weight, rawTicks(logs[0]));
    assert.ok(attributed(p) >= 0.95, `attributed ${attributed(p)}`);
    assert.ok(selfOf(p, 'work') > 0, 'work() got no ticks');
    assert.ok(categoryWeights(p).gc > 0, 'GC ticks not classified');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('IDLE ticks become the (idle) frame', async () => {
  const { dir, logs } = prof(`let n = 0;
function step() { let x = 0; const end = Date.now() + 5; while (Date.now() < end) x++; if (++n < 40) setTimeout(step, 20); }
step();
`);
  try {
    const idle = rawTicks(logs[0], 8);
    assert.ok(idle > 0, 'node logged no IDLE ticks');
    const p = await v8logImporter.load(logs[0], {});
    assert.equal(categoryWeights(p).idle, idle);
    assert.equal(selfOf(p, '(idle)'), idle);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a worker thread is a second thread, main first', async () => {
  const { dir, logs } = prof(`const { Worker, isMainThread, parentPort } = require('worker_threads');
function spinMain(ms) { const e = Date.now() + ms; let x = 0; while (Date.now() < e) x += Math.sqrt(x + 1); return x; }
function spinWorker(ms) { const e = Date.now() + ms; let x = 0; while (Date.now() < e) x += Math.sqrt(x + 2); return x; }
if (isMainThread) { const w = new Worker(__filename); w.on('exit', () => {}); spinMain(400); }
else { spinWorker(400); parentPort.postMessage(1); }
`);
  try {
    assert.equal(logs.length, 2, 'expected one log per isolate');
    // Whichever log is given, both isolates load.
    for (const log of logs) {
      const p = await v8logImporter.load(log, {});
      assert.deepEqual(
        p.threads.map((t) => t.name),
        ['main', 'worker 1'],
      );
      assert.equal(p.tree.weight, rawTicks(logs[0]) + rawTicks(logs[1]));
      const root = p.tree.children(0).map((n) => ({ name: p.frames[p.tree.frame[n]].name, node: n }));
      const under = (thread: string, fn: string): number => {
        const r = root.find((x) => x.name === `thread ${thread}`)!;
        let found = 0;
        const walk = (n: number): void => {
          if (p.frames[p.tree.frame[n]]?.name === fn) found += p.tree.total[n];
          else for (const c of p.tree.children(n)) walk(c);
        };
        walk(r.node);
        return found;
      };
      assert.ok(under('main', 'spinMain') > 0, 'spinMain not under main');
      assert.ok(under('worker 1', 'spinWorker') > 0, 'spinWorker not under the worker');
      assert.equal(under('main', 'spinWorker'), 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inlined callee gets its own frame and line', async () => {
  const { dir, logs } = prof(`function inner(x) { return Math.sqrt(x) * 1.0001 + (x % 7); }
function outer(n) { let s = 0; for (let i = 0; i < n; i++) s += inner(i); return s; }
const end = Date.now() + 700; let t = 0; while (Date.now() < end) t += outer(1e5);
`);
  try {
    const log = readFileSync(logs[0], 'latin1');
    assert.match(log, /^code-source-info,.*,F\d+O\d+/m, 'TurboFan inlined nothing');
    const p = await v8logImporter.load(logs[0], {});
    // A sample in outer's TurboFan code at a position inside inner: outer → inner, both TurboFan.
    let inlined = 0;
    for (let n = 1; n < p.tree.count; n++) {
      const f = p.frames[p.tree.frame[n]];
      const parent = p.frames[p.tree.frame[p.tree.parent[n]]];
      if (f?.name === 'inner' && f.tier === 'turbofan' && parent?.name === 'outer' && parent.tier === 'turbofan')
        inlined += p.tree.total[n];
    }
    assert.ok(inlined > 0, 'no inlined inner under outer');
    const file = join(dir, 'prog.js');
    const lines = p.lineHits.get(file);
    assert.ok(lines && (lines.get(1)?.self ?? 0) > 0, 'no self ticks on inner’s line 1');
    assert.ok((lines.get(2)?.total ?? 0) >= (lines.get(1)?.self ?? 0), 'outer’s call line does not carry the inlined ticks');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a log cut mid-line gives a partial profile and a warning', async () => {
  const { dir, logs } = prof(`function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 3; return s; }
const end = Date.now() + 300; let t = 0; while (Date.now() < end) t += f(1e4);
`);
  try {
    const text = readFileSync(logs[0], 'latin1');
    const lastTick = text.lastIndexOf('\ntick,');
    const cut = join(dir, 'cut', 'isolate-0x1-1-v8.log');
    mkdirSync(join(dir, 'cut'));
    writeFileSync(cut, text.slice(0, lastTick + 12), 'latin1');
    const p = await v8logImporter.load(cut, {});
    assert.equal(p.tree.weight, rawTicks(logs[0]) - 1);
    assert.ok(
      p.warnings.some((w) => /cut off/.test(w) && w.includes('"tick"')),
      p.warnings.join('\n'),
    );
    assert.ok(selfOf(p, 'f') > 0);
    // Something that only starts like a log is rejected in one line, not half-read.
    const junk = join(dir, 'cut', 'junk.log');
    writeFileSync(junk, Buffer.from([0x00, 0xff, 0x10, 0x0a]));
    assert.equal(v8logImporter.sniff(readFileSync(junk), junk), false);
    await assert.rejects(v8logImporter.load(junk, {}), /not a V8 tick log/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
