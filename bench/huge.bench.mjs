// `npm run bench huge`: a 1 GB `perf script` text and a 1 GB `--prof` log, made by repeating the real
// fuzz seeds (test/fixtures/fuzz) with shifted timestamps, each read by `node-flame report --format json`
// under /usr/bin/time -v: prints wall time, throughput and peak RSS, then deletes the file.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { makePerf, makeV8Log } from './bigInputs.mjs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const cli = join(root, 'dist', 'cli.js');
const TARGET = Number(process.env.HUGE_BYTES || 1 << 30);

function measure(label, file, expectSamples) {
  const size = statSync(file).size;
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, cli, 'report', file, '--format', 'json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const secs = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]);
  let samples = NaN;
  try {
    samples = JSON.parse(r.stdout).samples;
  } catch {
    console.log(
      r.stderr
        .split('\n')
        .filter((l) => !/^\s/.test(l))
        .join('\n'),
    );
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
    const { samples, reps } = await make(file, TARGET, join(root, 'test', 'fixtures', 'fuzz'));
    console.log(
      `${label}: wrote ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB (${reps} copies of the seed) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    measure(label, file, samples);
  } finally {
    rmSync(file, { force: true });
  }
}
