import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { cli } from '../helpers/paths';

// Every worker thread of a process writes its JIT code into the same per-process records: each thread's
// JavaScript must be named right in perf mode, as cpu-prof mode names it.
const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;

const worker = (i: number): string => `const { parentPort } = require('node:worker_threads');
function hot${i}(n) { let s = 0; for (let k = 0; k < n; k++) s = (s + k * ${i + 3}) % 1000003; return s; }
const end = Date.now() + 1500; let acc = 0;
while (Date.now() < end) acc ^= hot${i}(50000);
parentPort.postMessage(acc);
`;
const MAIN = `const { Worker } = require('node:worker_threads');
let left = 4;
for (let i = 0; i < 4; i++) new Worker(require('node:path').join(__dirname, 'work' + i + '.js')).on('message', () => --left || console.log('done'));
`;

test('perf mode names each worker thread its own function at its file:line', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-workers-'));
  try {
    for (let i = 0; i < 4; i++) writeFileSync(join(dir, `work${i}.js`), worker(i));
    writeFileSync(join(dir, 'main.js'), MAIN);
    const r = spawnSync(
      process.execPath,
      [cli, 'profile', '-m', 'perf', '--no-report', '--out', join(dir, 'runs'), '--', 'node', 'main.js'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const run = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
    const p = await loadProfile(join(run, 'perf.data'), { sourceMaps: false });
    // thread (root frame) → hotN frame → samples in which it is the innermost JS function.
    const byThread = new Map<string, Map<string, number>>();
    p.tree.forEachStack((stack, w) => {
      const thread = p.frames[stack[0]].name;
      const hot = stack.map((f) => p.frames[f]).find((f) => /^hot\d$/.test(f.name));
      if (!hot) return;
      const m = byThread.get(thread) ?? new Map<string, number>();
      const key = `${hot.name} ${hot.file.slice(dir.length + 1)}:${hot.line}`;
      m.set(key, (m.get(key) ?? 0) + w);
      byThread.set(thread, m);
    });
    console.log(`[workers] ${[...byThread].map(([t, m]) => `${t}: ${[...m].map(([k, w]) => `${k} ×${w}`).join(', ')}`).join('; ')}`);
    const named = [...byThread.values()].map((m) => [...m.keys()]);
    assert.equal(named.length, 4, 'four threads run a hot function');
    assert.ok(
      named.every((keys) => keys.length === 1),
      'each thread runs only its own function',
    );
    assert.deepEqual(
      named.map((k) => k[0]).sort(),
      [0, 1, 2, 3].map((i) => `hot${i} work${i}.js:2`),
    );
    // The preload's require hook (it reads inline source maps) is on the stack of every module's top level, so of
    // a worker's hot loop too: it must be machinery there (Node's, like the loader), never the user's code.
    let blamed = 0;
    p.tree.forEachStack((stack, w) => {
      const frames = stack.map((f) => p.frames[f]);
      if (frames.some((f) => /^hot\d$/.test(f.name)) && frames.some((f) => /preload/.test(f.file) && f.category !== 'node')) blamed += w;
    });
    assert.equal(blamed, 0, "no hot stack runs through the preload as the user's code");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
