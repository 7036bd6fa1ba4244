// V8 tick log → model: `node --prof-process` vs `node-flame report --format json` on the same ~80 MB log,
// timed side by side with peak RSS. The log is made once into bench/.work/ (mixed CPU workload, 20 s).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const work = join(here, '.work', 'v8log');
const log = join(work, 'isolate-0x1-1-v8.log');
const cli = join(root, 'dist', 'cli.js');

const WORKLOAD = `
// Deep stacks, many functions, regexps, JSON, crypto, allocation: a bit of everything V8 logs.
const crypto = require('crypto');
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function parse(s) { return JSON.parse(s).items.map((x) => x.name.replace(/[aeiou]/g, '_')).join(','); }
function sortBig(n) { const a = []; for (let i = 0; i < n; i++) a.push({ k: Math.random() }); return a.sort((x, y) => x.k - y.k).length; }
function hash(i) { return crypto.createHash('sha256').update('x' + i).digest('hex'); }
function recurse(d, f) { return d === 0 ? f() : recurse(d - 1, f) + 1; }
const doc = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ name: 'item' + i, v: i })) });
const end = Date.now() + 20000;
let t = 0;
while (Date.now() < end) {
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
  if (existsSync(log)) return;
  mkdirSync(work, { recursive: true });
  const tmp = join(work, 'run');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  writeFileSync(join(tmp, 'workload.js'), WORKLOAD);
  console.log('making the log (20 s of node --prof --prof-sampling-interval=100)…');
  const r = spawnSync(process.execPath, ['--prof', '--prof-sampling-interval=100', 'workload.js'], { cwd: tmp, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('workload failed');
  const made = readdirSync(tmp).find((n) => n.startsWith('isolate-') && n.endsWith('.log'));
  renameSync(join(tmp, made), log);
  rmSync(tmp, { recursive: true, force: true });
}

/** Wall time and peak RSS of a child, via GNU time when present, else this process's child usage. */
function timed(args) {
  const hasTime = existsSync('/usr/bin/time');
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.slice(-500)}`);
  const kb = hasTime ? Number(r.stderr.trim().split('\n').pop()) : process.resourceUsage().maxRSS;
  return { ms, mb: kb / 1024, out: r.stdout };
}

makeLog();
const size = statSync(log).size / 1e6;
console.log(`log: ${log} (${size.toFixed(1)} MB)`);
// Warm the symbol cache the way a second report would find it; the first `nm` costs ~0.4 s once per binary.
timed([cli, 'report', log, '--format', 'json']);
const prof = timed(['--prof-process', log]);
const flame = timed([cli, 'report', log, '--format', 'json']);
const summary = JSON.parse(flame.out);
const unacc = /\((\d+) ticks, (\d+) unaccounted/.exec(prof.out);
console.log(`node --prof-process : ${(prof.ms / 1000).toFixed(2)} s, peak RSS ${prof.mb.toFixed(0)} MB${unacc ? `, ${unacc[2]}/${unacc[1]} ticks unaccounted` : ''}`);
console.log(`node-flame report   : ${(flame.ms / 1000).toFixed(2)} s, peak RSS ${flame.mb.toFixed(0)} MB, ${summary.samples} samples, attributed ${(summary.attributed * 100).toFixed(1)}%`);
console.log(`speed-up ${(prof.ms / flame.ms).toFixed(1)}×, memory ratio ${(flame.mb / prof.mb).toFixed(2)}`);
