// V8 tick log → model: `node --prof-process` vs `node-flame report --format json` on the same ~80 MB log,
// timed side by side with peak RSS. The log is made once into bench/.work/: a mixed CPU workload under
// `--prof --prof-sampling-interval=100` runs until its log reaches TARGET_MB, because on shared CPUs
// a fixed 20 s yields anywhere from 30 to 80 MB.
// `node bench/v8log.bench.mjs --log-only` just makes the log.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const work = join(here, '.work', 'v8log');
const log = join(work, 'isolate-0x1-1-v8.log');
const cli = join(root, 'dist', 'cli.js');
const TARGET_MB = 80;
/** Stop anyway after this long: a machine this slow would make the comparison meaningless too. */
const MAX_SECONDS = 600;

const WORKLOAD = `
// Deep stacks, many functions, regexps, JSON, crypto, allocation: a bit of everything V8 logs.
// Runs until its own log (the only isolate-*.log in its folder) holds TARGET bytes.
const crypto = require('crypto');
const fs = require('fs');
const TARGET = +process.argv[2];
const end = Date.now() + +process.argv[3] * 1000;
function logSize() {
  const f = fs.readdirSync('.').find((n) => n.startsWith('isolate-') && n.endsWith('.log'));
  return f ? fs.statSync(f).size : 0;
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function parse(s) { return JSON.parse(s).items.map((x) => x.name.replace(/[aeiou]/g, '_')).join(','); }
function sortBig(n) { const a = []; for (let i = 0; i < n; i++) a.push({ k: Math.random() }); return a.sort((x, y) => x.k - y.k).length; }
function hash(i) { return crypto.createHash('sha256').update('x' + i).digest('hex'); }
function recurse(d, f) { return d === 0 ? f() : recurse(d - 1, f) + 1; }
const doc = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ name: 'item' + i, v: i })) });
let t = 0;
while (Date.now() < end && logSize() < TARGET) {
  for (let d = 5; d < 40; d += 7) {
    t += recurse(d, () => fib(16));
    t += recurse(d, () => parse(doc).length);
    t += recurse(d, () => sortBig(2000));
    t += recurse(d, () => hash(t).length);
  }
}
console.log(t > 0);
`;

function makeLog() {
  // A log from an older, size-blind version of this bench may be far smaller: make it again.
  if (existsSync(log) && statSync(log).size >= TARGET_MB * 0.9e6) return;
  mkdirSync(work, { recursive: true });
  const tmp = join(work, 'run');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  writeFileSync(join(tmp, 'workload.js'), WORKLOAD);
  console.log(`making the log (node --prof --prof-sampling-interval=100 until it holds ${TARGET_MB} MB)…`);
  const t0 = Date.now();
  const args = ['--prof', '--prof-sampling-interval=100', 'workload.js', String(TARGET_MB * 1e6), String(MAX_SECONDS)];
  const r = spawnSync(process.execPath, args, { cwd: tmp, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('workload failed');
  const made = readdirSync(tmp).find((n) => n.startsWith('isolate-') && n.endsWith('.log'));
  renameSync(join(tmp, made), log);
  rmSync(tmp, { recursive: true, force: true });
  console.log(`made in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Wall time and peak RSS of a child, via GNU time when present, else this process's child usage. */
function timed(args) {
  const hasTime = existsSync('/usr/bin/time');
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.slice(-500)}`);
  // CPU seconds too: on shared cores wall time swings with the neighbours' load.
  const [kb, user, sys] = hasTime ? r.stderr.trim().split('\n').pop().split(' ').map(Number) : [process.resourceUsage().maxRSS, NaN, NaN];
  return { ms, mb: kb / 1024, cpu: user + sys, out: r.stdout };
}

makeLog();
if (process.argv.includes('--log-only')) process.exit(0);
const size = statSync(log).size / 1e6;
console.log(`log: ${log} (${size.toFixed(1)} MB)`);
// Warm the symbol cache the way a second report would find it; the first `nm` costs ~0.4 s once per binary.
timed([cli, 'report', log, '--format', 'json']);
const prof = timed(['--prof-process', log]);
const flame = timed([cli, 'report', log, '--format', 'json']);
const summary = JSON.parse(flame.out);
const unacc = /\((\d+) ticks, (\d+) unaccounted/.exec(prof.out);
const cpu = (t) => (isNaN(t.cpu) ? '' : ` (${t.cpu.toFixed(2)} s CPU)`);
console.log(
  `node --prof-process : ${(prof.ms / 1000).toFixed(2)} s${cpu(prof)}, peak RSS ${prof.mb.toFixed(0)} MB${unacc ? `, ${unacc[2]}/${unacc[1]} ticks unaccounted` : ''}`,
);
console.log(
  `node-flame report   : ${(flame.ms / 1000).toFixed(2)} s${cpu(flame)}, peak RSS ${flame.mb.toFixed(0)} MB, ${summary.samples} samples, attributed ${(summary.attributed * 100).toFixed(1)}%`,
);
console.log(
  `speed-up ${(prof.ms / flame.ms).toFixed(1)}× wall${isNaN(prof.cpu) ? '' : `, ${(prof.cpu / flame.cpu).toFixed(1)}× CPU`}, peak RSS ratio ${(flame.mb / prof.mb).toFixed(2)} (node-flame / --prof-process)`,
);
