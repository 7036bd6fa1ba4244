// `npm run bench huge`: a 1 GB `perf script` text and a 1 GB `--prof` log, made by repeating the real
// fuzz seeds (test/fixtures/fuzz) with shifted timestamps, each read by `node-flame report --format json`
// under /usr/bin/time -v: prints wall time, throughput and peak RSS, then deletes the file.
import { createWriteStream, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const seeds = join(root, 'test', 'fixtures', 'fuzz');
const cli = join(root, 'dist', 'cli.js');
const TARGET = Number(process.env.HUGE_BYTES || 1 << 30);

async function writeRepeated(file, head, nextChunk) {
  const out = createWriteStream(file);
  let bytes = 0;
  let reps = 0;
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write(head);
  bytes += Buffer.byteLength(head);
  while (bytes < TARGET) {
    const chunk = nextChunk(reps++);
    bytes += Buffer.byteLength(chunk);
    await write(chunk);
  }
  await new Promise((r) => out.end(r));
  return reps;
}

/** perf script: the header once, then every sample again with its timestamp moved past the last copy. */
async function makePerf(file) {
  const text = readFileSync(join(seeds, 'seed.perf.txt'), 'utf8');
  const first = text.search(/^\S.*\d+\.\d+:/m);
  const head = text.slice(0, first);
  const body = text.slice(first);
  const times = [...body.matchAll(/^(\S.*? )(\d+\.\d+)(:)/gm)].map((m) => Number(m[2]));
  const span = Math.max(...times) - Math.min(...times) + 0.005;
  // The JSON report's `samples` is the total weight: perf periods.
  const weight = [...body.matchAll(/^\S.*? \d+\.\d+:\s+(\d+) /gm)].reduce((a, m) => a + Number(m[1]), 0);
  const reps = await writeRepeated(file, head, (k) => body.replace(/^(\S.*? )(\d+\.\d+)(:)/gm, (_, a, t, c) => `${a}${(Number(t) + k * span).toFixed(6)}${c}`) + '\n');
  return { samples: weight * reps, reps };
}

/** --prof log: the set-up records once, then the tick records again with shifted timestamps. */
async function makeV8Log(file) {
  const lines = readFileSync(join(seeds, 'seed-v8.log'), 'latin1').trimEnd().split('\n');
  const ticks = lines.filter((l) => l.startsWith('tick,'));
  const head = lines.filter((l) => !l.startsWith('tick,') && !l.startsWith('profiler,end')).join('\n') + '\n';
  const ts = ticks.map((l) => Number(l.split(',')[2]));
  const span = Math.max(...ts) - Math.min(...ts) + 1000;
  const parts = ticks.map((l) => l.split(','));
  const reps = await writeRepeated(file, head, (k) => parts.map((f) => `${f[0]},${f[1]},${Number(f[2]) + k * span},${f.slice(3).join(',')}`).join('\n') + '\n');
  return { samples: ticks.length * reps, reps };
}

function measure(label, file, expectSamples) {
  const size = statSync(file).size;
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, cli, 'report', file, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const secs = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]);
  let samples = NaN;
  try {
    samples = JSON.parse(r.stdout).samples;
  } catch {
    console.log(r.stderr.split('\n').filter((l) => !/^\s/.test(l)).join('\n'));
  }
  console.log(
    `${label}: ${(size / 2 ** 30).toFixed(2)} GiB in ${secs.toFixed(1)} s (${(size / 2 ** 20 / secs).toFixed(0)} MiB/s), peak RSS ${(rssKb / 1024).toFixed(0)} MiB, ` +
      `exit ${r.status}, ${samples} samples read${expectSamples ? ` (expected ${expectSamples})` : ''}`,
  );
}

mkdirSync(work, { recursive: true });
for (const [label, name, make] of [
  ['perf script text', 'huge.perf.txt', makePerf],
  ['--prof log', 'isolate-0x1-1-v8.log', makeV8Log],
]) {
  const file = join(work, name);
  try {
    const t0 = Date.now();
    const { samples, reps } = await make(file);
    console.log(`${label}: wrote ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB (${reps} copies of the seed) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    measure(label, file, samples);
  } finally {
    rmSync(file, { force: true });
  }
}
