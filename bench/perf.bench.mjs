// `npm run bench perf`: `perf script` text (~100 MB) → model, against inferno-collapse-perf --nthreads 1 on the
// same file in the same run. The text comes from a real `perf record` of a small mixed workload, repeated to size.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, statSync, openSync, writeSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleImporters, timed, which } from './measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const work = join(here, '.work');
const text = join(work, 'perf-script-100mb.txt');
const loader = join(work, 'perf-load.cjs');
const TARGET = 100 * 1024 * 1024;
const RUNS = 3;

// Child mode: load the file into the model in this process and report the parse time and sample count.
if (process.argv[2] === '--load') {
  const { loadProfile } = await import(loader);
  const t0 = performance.now();
  const p = await loadProfile(process.argv[3], { sourceMaps: false });
  process.stdout.write(JSON.stringify({ ms: performance.now() - t0, weight: p.tree.weight, frames: p.frames.length, nodes: p.tree.count }));
  process.exit(0);
}

const perf = which('perf');
const inferno = which('inferno-collapse-perf');
if (!perf || !inferno) {
  console.log(`skipped: needs perf (${perf ?? 'missing'}) and inferno-collapse-perf (${inferno ?? 'missing: cargo install inferno'})`);
  process.exit(0);
}
mkdirSync(work, { recursive: true });

if (!existsSync(text) || statSync(text).size < TARGET * 0.9) {
  console.log('recording a 2 s mixed workload under perf to make the input…');
  const app = join(work, 'mixed.js');
  writeFileSync(
    app,
    `const zlib = require('zlib');
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function words(i) { const o = {}; for (let k = 0; k < 300; k++) o['k' + ((i * k) % 97)] = (o['k' + ((i * k) % 97)] | 0) + 1; return JSON.stringify(o).length; }
function pack(buf) { return zlib.deflateSync(buf, { level: 9 }).length; }
const buf = Buffer.from('abcdefgh'.repeat(1 << 16));
let acc = 0; const end = Date.now() + 2000;
for (let i = 0; Date.now() < end; i++) { acc += fib(18) + words(i); if (i % 50 === 0) acc += pack(buf); }
console.log(acc);
`,
  );
  const data = join(work, 'mixed.data');
  const rec = spawnSync(
    perf,
    ['record', '-F', '999', '-g', '-o', data, '--', process.execPath, '--perf-basic-prof', '--interpreted-frames-native-stack', app],
    { encoding: 'utf8' },
  );
  if (rec.status !== 0) {
    console.log(`perf record failed: ${rec.stderr}`);
    process.exit(1);
  }
  // Default `perf script` output (with symbol offsets): the text users hand over.
  const script = spawnSync(perf, ['script', '-i', data], { maxBuffer: 1 << 30 });
  const one = script.stdout;
  const pids = new Set([...one.toString('latin1').matchAll(/\/tmp\/perf-(\d+)\.map/g)].map((m) => m[1]));
  for (const pid of pids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  rmSync(data, { force: true });
  const fd = openSync(text, 'w');
  let size = 0;
  while (size < TARGET) size += writeSync(fd, one);
  closeSync(fd);
}
const size = statSync(text).size;
console.log(`input: ${text} (${(size / 1048576).toFixed(1)} MB)`);

await bundleImporters(root, loader);

const rows = { inferno: [], load: [], cli: [] };
let loaded;
for (let i = 0; i < RUNS; i++) {
  rows.inferno.push(timed(inferno, ['--nthreads', '1', text], join(work, 'inferno.folded')));
  const l = timed(process.execPath, [fileURLToPath(import.meta.url), '--load', text]);
  loaded = JSON.parse(l.stdout);
  rows.load.push(l);
  rows.cli.push(
    timed(process.execPath, [join(root, 'dist/cli.js'), 'report', text, '--format', 'folded', '-o', join(work, 'ours.folded')]),
  );
}

const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
const fmt = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : 'n/a');
const base = { wall: best(rows.inferno, 'wall'), cpu: best(rows.inferno, 'cpu') };
console.log(`best of ${RUNS} runs each, interleaved; CPU = user+sys of the process`);
console.log(`inferno-collapse-perf --nthreads 1     wall ${fmt(base.wall)}  cpu ${fmt(base.cpu)}`);
for (const [k, label] of [
  ['load', 'node-flame importer → model (process)'],
  ['cli', 'node dist/cli.js report --format folded'],
]) {
  const w = best(rows[k], 'wall');
  const c = best(rows[k], 'cpu');
  console.log(
    `${label.padEnd(38)} wall ${fmt(w)}  cpu ${fmt(c)}  ratio wall ${(w / base.wall).toFixed(2)}×  cpu ${(c / base.cpu).toFixed(2)}×`,
  );
}
console.log(
  `in-process parse time (no node startup): best ${fmt(
    best(
      rows.load.map((r) => ({ ms: JSON.parse(r.stdout).ms })),
      'ms',
    ),
  )}`,
);

// Same answer: total weight of inferno's folded output equals the model's.
const infernoWeight = readFileSync(join(work, 'inferno.folded'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
console.log(
  `total weight: inferno ${infernoWeight}, model ${loaded.weight} (${infernoWeight === loaded.weight ? 'equal' : 'DIFFERENT'}); ${loaded.frames} frames, ${loaded.nodes} nodes`,
);
