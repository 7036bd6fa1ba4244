// How well perf mode's `(caller not recorded)` rule (src/core/importers/perf/framePointers.ts) matches what happened,
// on a real recording: `node bench/frame-pointer-truth.mjs RUN_FOLDER/perf.data [BINARY]`. Not part of `npm run bench`
// (it needs a perf recording of a program of your choice).
//
// For each sample whose first frame of user code is in BINARY (default /usr/bin/node) and whose next frame returns into
// BINARY right after a direct call (e8 rel32), the call's target says what happened: the sampled function (perf gave
// its caller) or another one (perf skipped the caller: it read the caller's caller's return address). The rule is
// applied to the same bytes, independently of the product's code, and the four counts printed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [data, binary = '/usr/bin/node'] = process.argv.slice(2);
if (!data) {
  console.error('usage: node bench/frame-pointer-truth.mjs perf.data [binary]');
  process.exit(2);
}
const bin = readFileSync(binary);
// perf prints a file offset; nm a link-time address. The text segment's difference (0x400000 for a non-PIE node).
const load = execFileSync('readelf', ['-lW', binary])
  .toString()
  .split('\n')
  .find((l) => /^\s+LOAD .* R E /.test(l));
const [, off, vaddr] = /LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)/.exec(load);
const BASE = parseInt(vaddr, 16) - parseInt(off, 16);

const syms = [];
for (const l of execFileSync('nm', ['-S', '--defined-only', binary], { maxBuffer: 2 ** 30 })
  .toString()
  .split('\n')) {
  const m = /^([0-9a-f]+) ([0-9a-f]+) [tTwW] /.exec(l);
  if (m) syms.push([parseInt(m[1], 16), parseInt(m[2], 16)]);
}
syms.sort((a, b) => a[0] - b[0]);
function startOf(v) {
  let lo = 0;
  let hi = syms.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (syms[mid][0] <= v) lo = mid;
    else hi = mid - 1;
  }
  const s = syms[lo];
  return s && v >= s[0] && v < s[0] + s[1] ? s[0] : -1;
}
const isMov = (o) => bin[o] === 0x48 && ((bin[o + 1] === 0x89 && bin[o + 2] === 0xe5) || (bin[o + 1] === 0x8b && bin[o + 2] === 0xec));
function readyAt(o) {
  const k = bin[o] === 0xf3 && bin[o + 1] === 0x0f && bin[o + 2] === 0x1e && bin[o + 3] === 0xfa ? 4 : 0;
  for (let p = k; p <= k + 96; p++) {
    if (bin[o + p] !== 0x55) continue;
    for (let j = p + 1; j <= p + 16; j++) if (isMov(o + j)) return j + 3;
    if (p === k) return -1;
  }
  return -1;
}
function frameless(start, ip) {
  const r = readyAt(start - BASE);
  const into = ip - start;
  if (r < 0 || into < r) return true;
  const o = ip - BASE;
  return bin[o] === 0xc3 && (bin[o - 1] === 0x5d || bin[o - 1] === 0xc9);
}

const out = execFileSync('perf', ['script', '-i', data, '-F', 'ip,dso'], { maxBuffer: 2 ** 31 - 1 }).toString();
const n = { markedSkipped: 0, markedRight: 0, unmarkedSkipped: 0, unmarkedRight: 0, notDirect: 0 };
for (const block of out.split('\n\n')) {
  const fr = block
    .split('\n')
    .map((l) => /^\s*([0-9a-f]+) \((.*)\)$/.exec(l))
    .filter(Boolean);
  let u = 0;
  while (u < fr.length && fr[u][2].startsWith('[kernel')) u++;
  if (u + 1 >= fr.length || fr[u][2] !== binary || fr[u + 1][2] !== binary) continue;
  const ip = parseInt(fr[u][1], 16) + BASE;
  const start = startOf(ip);
  const ret = parseInt(fr[u + 1][1], 16) + BASE;
  if (start < 0) continue;
  if (bin[ret - BASE - 5] !== 0xe8) {
    n.notDirect++;
    continue;
  }
  const skipped = ret + bin.readInt32LE(ret - BASE - 4) !== start;
  const marked = frameless(start, ip);
  n[(marked ? 'marked' : 'unmarked') + (skipped ? 'Skipped' : 'Right')]++;
}
console.log(n);
