// The history view lists a repository's run folders on the extension host's main thread: 20 run folders whose
// run.json is 16 MB each must cost about what 20 ordinary ones do (memory and the longest block of the thread).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { listRuns, MAX_LISTED_RUNS } from '../../src/extension/history/runs';
import { HOST_RUN_JSON_BYTES } from '../../src/launch/run/runFolder';
import { bigRunJson } from '../helpers/hostile';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const root = mkdtempSync(join(tmpdir(), 'nf-history-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A run.json of about `bytes`: a real one with a long list of processes, as a hostile repository would ship. */
function runJson(bytes: number, i: number): string {
  return bigRunJson(bytes, {
    version: 1,
    mode: 'cpu-prof',
    command: ['node', `app${i}.js`],
    durationMs: 1000 + i,
    profiles: [`CPU.1.1.${i}.0.001.cpuprofile`],
  });
}

function workspace(name: string, bytes: number, count = 20): string {
  const ws = join(root, name);
  for (let i = 0; i < count; i++) {
    const dir = join(ws, '.nodeflame', `202601${String(1 + (i % 28)).padStart(2, '0')}-1200${String(i).padStart(2, '0')}-cpu-prof`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `CPU.1.1.${i}.0.001.cpuprofile`), '{"nodes":[],"samples":[],"timeDeltas":[]}');
    writeFileSync(join(dir, 'run.json'), runJson(bytes, i));
  }
  return ws;
}

/** listRuns with its time, the heap it left grown, its peak, and the longest the thread went without a turn. */
async function measure(
  ws: string,
): Promise<{ ms: number; heapMB: number; peakMB: number; blockMs: number; runs: Awaited<ReturnType<typeof listRuns>> }> {
  gc();
  const mem = () => {
    const m = process.memoryUsage();
    return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
  };
  const base = mem();
  let peak = base;
  let blockMs = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    blockMs = Math.max(blockMs, now - last);
    last = now;
    peak = Math.max(peak, mem());
  }, 1);
  const t0 = performance.now();
  const runs = await listRuns(ws);
  const ms = performance.now() - t0;
  clearInterval(tick);
  blockMs = Math.max(blockMs, performance.now() - last);
  peak = Math.max(peak, mem());
  const heapMB = mem() - base;
  return { ms, heapMB, peakMB: peak - base, blockMs, runs };
}

test('20 run folders with a 16 MB run.json each list as cheaply as 20 ordinary ones', { timeout: 120_000 }, async () => {
  const small = workspace('small', 2_000);
  const big = workspace('big', 16 * 2 ** 20);
  const underCap = workspace('under-cap', HOST_RUN_JSON_BYTES - 4096);
  await measure(small); // warm up the code paths
  const a = await measure(small);
  const b = await measure(big);
  const c = await measure(underCap);
  const fmt = (m: typeof a) =>
    `${m.ms.toFixed(0)} ms, heap +${m.heapMB.toFixed(1)} MB (peak +${m.peakMB.toFixed(1)} MB), longest block ${m.blockMs.toFixed(0)} ms`;
  console.log(`[history] 20 × 2 KB run.json: ${fmt(a)}`);
  console.log(`[history] 20 × 16 MB run.json: ${fmt(b)}; ratio to ordinary ${(b.ms / a.ms).toFixed(2)}× time`);
  console.log(`[history] 20 × ${(HOST_RUN_JSON_BYTES / 2 ** 20 - 0.004).toFixed(3)} MB run.json (just under the cap): ${fmt(c)}`);

  assert.equal(b.runs.length, 20, 'every run is still listed');
  assert.ok(
    b.runs.every((r) => r.runJsonTooBig !== undefined && r.runJsonTooBig > HOST_RUN_JSON_BYTES && r.profiles.length === 1),
    'each is listed from its files, with the size of the run.json not read',
  );
  assert.equal(a.runs.filter((r) => r.runJsonTooBig !== undefined).length, 0);
  assert.equal(a.runs[0].durationMs !== undefined, true, 'an ordinary run.json is read');
  // Bounded: no more than the ordinary listing plus a little, whatever the files hold.
  assert.ok(b.peakMB < a.peakMB + 16, `peak heap +${b.peakMB.toFixed(1)} MB vs +${a.peakMB.toFixed(1)} MB`);
  assert.ok(b.ms < a.ms * 3 + 200, `${b.ms.toFixed(0)} ms vs ${a.ms.toFixed(0)} ms`);
  assert.ok(b.blockMs < 100, `the thread was blocked ${b.blockMs.toFixed(0)} ms at once`);
  // Just under the cap: read one at a time, so memory holds one file's worth and no block is long.
  assert.ok(c.peakMB < 64, `peak heap +${c.peakMB.toFixed(1)} MB`);
  assert.ok(c.blockMs < 250, `the thread was blocked ${c.blockMs.toFixed(0)} ms at once`);
});

test(`a repository with more run folders than the view lists: the newest ${MAX_LISTED_RUNS}`, async () => {
  const ws = join(root, 'many');
  for (let i = 0; i < MAX_LISTED_RUNS + 20; i++) {
    const dir = join(
      ws,
      '.nodeflame',
      `2026${String(1 + (Math.floor(i / 28 / 24) % 12)).padStart(2, '0')}${String(1 + (Math.floor(i / 24) % 28)).padStart(2, '0')}-${String(i % 24).padStart(2, '0')}0000-prof`,
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'isolate-0x1-1-v8.log'), 'x');
  }
  const runs = await listRuns(ws);
  assert.equal(runs.length, MAX_LISTED_RUNS);
  assert.ok(runs[0].name > runs[runs.length - 1].name, 'newest first');
});
