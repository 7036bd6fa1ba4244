// A process's tick logs answer the same whoever reads them and however they were cut: a live run's reader (the logs
// read in turns, a few new lines of each at a time) and a whole read (each log to its end) of the same bytes give the
// same samples, stacks, functions, line heat, threads and notes. Real logs: a program whose worker thread starts
// mid-run, run under node --prof.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { V8LogTail } from '../../src/core/importers/v8log/tail';
import { functionStats } from '../../src/core/model/views';
import { LIVE_INFO_FILE } from '../../src/launch/run/cpuChunks';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { liveRun } from '../../src/launch/run/liveRun';
import { loadRunProfile, runThreadLabel } from '../../src/launch/run/runProfile';
import type { Profile } from '../../src/core/model';
import { frameKey, stackWeights } from '../helpers/profileCanon';

const WITH_WORKER = `
const { Worker, isMainThread } = require('node:worker_threads');
function hotLoop() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.sqrt(i) * Math.sin(i); return x; }
function workerLoop() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.cos(i); return x; }
const end = Date.now() + 2500;
if (isMainThread) setTimeout(() => new Worker(__filename), 800);
(function tick() { isMainThread ? hotLoop() : workerLoop(); if (Date.now() < end) setImmediate(tick); })();
// As the preload saves them: the process's maps at exit, beside its logs.
if (isMainThread) process.on('exit', () => require('node:fs').copyFileSync('/proc/self/maps', 'proc-maps-' + process.pid + '.txt'));
`;

function canon(p: Profile) {
  const stacks = stackWeights(p);
  const fns: string[] = [];
  for (const s of functionStats(p.tree, p.frames.length)) if (s.total) fns.push(`${frameKey(p.frames[s.frame])} ${s.self} ${s.total}`);
  const lines: string[] = [];
  for (const [file, m] of p.lineHits) for (const [line, h] of m) lines.push(`${file}:${line} ${h.self} ${h.total.toFixed(6)}`);
  return {
    samples: p.tree.total[0],
    stacks: [...stacks].map(([k, n]) => `${n} ${k}`).sort(),
    functions: fns.sort(),
    lines: lines.sort(),
    threads: p.threads.map((t) => `${t.name} ${t.samples}`).sort(),
    // A whole read says where a log was cut off; a live read leaves that line for the next read.
    warnings: p.warnings.filter((w) => !w.includes('ends in the middle')).sort(),
  };
}

const logs = (() => {
  let made: { main: Buffer; worker: Buffer; mainName: string; workerName: string; maps: Buffer; mapsName: string } | undefined;
  return () => {
    if (made) return made;
    const dir = mkdtempSync(join(tmpdir(), 'nf-one-reader-'));
    try {
      writeFileSync(join(dir, 'prog.js'), WITH_WORKER);
      const r = spawnSync(process.execPath, ['--prof', 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 30000 });
      assert.equal(r.status, 0, r.stderr);
      const names = readdirSync(dir).filter((n) => /^isolate-.*-v8\.log$/.test(n));
      assert.equal(names.length, 2, names.join(', '));
      const isWorker = (n: string) => readFileSync(join(dir, n), 'latin1').includes('node:internal/main/worker_thread');
      const workerName = names.find(isWorker)!;
      const mainName = names.find((n) => n !== workerName)!;
      const mapsName = readdirSync(dir).find((n) => n.startsWith('proc-maps-'))!;
      assert.ok(mapsName, 'the program saved its maps');
      const maps = readFileSync(join(dir, mapsName));
      made = { main: readFileSync(join(dir, mainName)), worker: readFileSync(join(dir, workerName)), mainName, workerName, maps, mapsName };
      return made;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
})();

/**
 * Reads the logs live, grown to each pair of sizes in turn (the process's maps there from read `mapsAt` on, as they are
 * saved at exit); each read must equal a whole read of the same files.
 */
async function readInTurns(cuts: [number, number][], what: string, mapsAt = Infinity): Promise<number> {
  const { main, worker, mainName, workerName, maps, mapsName } = logs();
  const dir = mkdtempSync(join(tmpdir(), 'nf-one-reader-cut-'));
  try {
    mkdirSync(dir, { recursive: true });
    const tail = new V8LogTail(join(dir, mainName));
    let last = 0;
    for (const [i, [m, w]] of cuts.entries()) {
      writeFileSync(join(dir, mainName), main.subarray(0, m));
      if (w > 0) writeFileSync(join(dir, workerName), worker.subarray(0, w));
      if (i === mapsAt) writeFileSync(join(dir, mapsName), maps);
      const live = canon(await tail.read({ sourceMaps: false }));
      const whole = canon(await loadProfile(join(dir, mainName), { sourceMaps: false }));
      assert.deepEqual(live, whole, `${what}, read ${i} (main ${m} of ${main.length} bytes, worker ${w} of ${worker.length})`);
      last = live.samples;
    }
    return last;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a worker's log read before the main isolate's later lines does not change how they are read", async () => {
  const { main, worker } = logs();
  // The worker's log lists the main isolate's copy of the builtins (--short-builtin-calls) as the node binary at a
  // second address; the main isolate's own log never does (its copy did not exist yet when V8 listed its libraries).
  const nodeAt = (log: Buffer) =>
    new Set(
      log
        .toString('latin1')
        .split('\n')
        .filter((l) => l.startsWith('shared-library,') && l.split(',')[1] === process.execPath)
        .map((l) => l.split(',')[2]),
    );
  assert.ok(nodeAt(worker).size > nodeAt(main).size, `node listed at ${[...nodeAt(worker)]} by the worker, ${[...nodeAt(main)]} by main`);
  // The main log cut right after its libraries, the worker's whole: the next read gives the main isolate its ticks
  // after the worker's listing. A whole read reads main's all before the worker's.
  const head = main.indexOf('shared-library-end\n') + 'shared-library-end\n'.length;
  const samples = await readInTurns(
    [
      [head, worker.length],
      [main.length, worker.length],
    ],
    "the worker's log first",
  );
  assert.ok(samples > 1000, `${samples} samples`);
});

test('live reads cut anywhere (mid-line, in a code-creation burst, right after a code-move, maps saved at exit) equal whole reads', async () => {
  const { main, worker } = logs();
  // Past the first lines: a log without its v8-version line is no tick log yet.
  const head = main.indexOf('shared-library-end\n');
  const after = (log: Buffer, what: string, nth = 1) => {
    let at = -1;
    for (let k = 0; k < nth; k++) at = log.indexOf(what, at + 1);
    return at < 0 ? -1 : log.indexOf('\n', at) + 1;
  };
  // Cuts inside a burst of code-creation lines (mid-line) and right after a code-move, where there is one.
  const burst = (log: Buffer) => {
    const at = log.indexOf('\ncode-creation,', Math.floor(log.length / 2));
    return at < 0 ? Math.floor(log.length / 2) : at + 20;
  };
  // Also right after the first 25 ticks: start-up, where V8 writing its log can pass the share that gets a note (CI
  // saw a live read without the note that a whole read of the same bytes had).
  const special = [burst(main), after(main, '\ncode-move,'), after(main, '\nsfi-move,'), after(main, '\ntick,', 25)].filter((x) => x > 0);
  const wSpecial = [burst(worker), after(worker, '\ncode-move,'), after(worker, 'shared-library-end\n')].filter((x) => x > 0);
  // A fixed sequence of pseudo-random cuts: the worker's log joins after the main one's first third.
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const round of [0, 1]) {
    const points = [...special, ...Array.from({ length: 8 }, () => head + Math.floor(rnd() * (main.length - head))), main.length].sort(
      (a, b) => a - b,
    );
    const wPoints = [...wSpecial, ...Array.from({ length: 8 }, () => Math.floor(rnd() * worker.length)), worker.length].sort(
      (a, b) => a - b,
    );
    const cuts: [number, number][] = points.map((m, i) => {
      const w =
        i < points.length / 3
          ? 0
          : wPoints[
              Math.min(wPoints.length - 1, Math.round(((i - points.length / 3) / (points.length * (2 / 3) - 1)) * (wPoints.length - 1)))
            ];
      return [m, w];
    });
    cuts[cuts.length - 1] = [main.length, worker.length];
    // The second round's last read finds the maps saved at exit, which the reads before it had not.
    await readInTurns(cuts, `round ${round}`, round === 1 ? cuts.length - 1 : Infinity);
  }
});

test("a run folder counts a process's samples once, however many isolates' logs it wrote (live and whole)", async () => {
  const { main, worker, mainName, workerName } = logs();
  const dir = mkdtempSync(join(tmpdir(), 'nf-one-reader-run-'));
  try {
    writeFileSync(join(dir, mainName), main);
    writeFileSync(join(dir, workerName), worker);
    writeFileSync(join(dir, LIVE_INFO_FILE), JSON.stringify({ mode: 'prof' }));
    // Named as a run names its threads (no process recorded here: by pid alone).
    const alone = await loadProfile(join(dir, mainName), { sourceMaps: false, threadLabel: runThreadLabel([]) });
    const pid = /-(\d+)-/.exec(mainName)![1];
    assert.deepEqual(alone.threads.map((t) => t.name).sort(), [`pid ${pid}`, `pid ${pid} thread 1`]);
    const opts = { sourceMaps: false, allProcesses: true };
    // Each log is one of the run's profiles; each of them leads the reader to the other.
    const whole = await loadRunProfile(liveRun(dir, {}, 'prof'), opts);
    const live = (await loadLiveRun(dir, opts)).profile;
    forgetLiveRun(dir);
    for (const [what, p] of [
      ['whole', whole],
      ['live', live],
    ] as const) {
      assert.equal(p.tree.total[0], alone.tree.total[0], `${what}: samples`);
      assert.deepEqual(canon(p).stacks, canon(alone).stacks, `${what}: stacks`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
