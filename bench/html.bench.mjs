// `npm run bench html`: the offline HTML export of two 1,000,000-sample .cpuprofile files, through
// `node-flame report --format html`: page size (and what the embedded data takes of it) and export time.
// One is the Timeline e2e test's synthetic profile (a sample every 1 ms, 48 stacks); the other repeats a real
// `node --cpu-prof --cpu-prof-interval 20` run made here (15 s of hashing, sorting and JSON, some 60,000-120,000
// samples with their own stacks and jittery steps) until it has as many. A copy must be well past gzip's 32 KiB
// window (checked: at least 40,000 samples, a byte or more each in every section), or gzip would find the repetition and the page
// would look smaller than a real run of that length makes it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timed } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
// HTML_CLI: another build's cli.js, to compare pages of the same input.
const cli = process.env.HTML_CLI || join(root, 'dist', 'cli.js');
const other = process.env.HTML_CLI_BEFORE;
const N = Number(process.env.HTML_SAMPLES || 1_000_000);

function synthetic(n) {
  const frame = (functionName, lineNumber) => ({ functionName, scriptId: '1', url: 'file:///app/big.js', lineNumber, columnNumber: 0 });
  const nodes = [{ id: 1, callFrame: { ...frame('(root)', -1), url: '' }, hitCount: 0, children: [] }];
  const leaves = [];
  let id = 2;
  for (let a = 0; a < 8; a++) {
    const top = { id: id++, callFrame: frame(`phase${a}`, a * 10), hitCount: 0, children: [] };
    nodes[0].children.push(top.id);
    nodes.push(top);
    for (let b = 0; b < 6; b++) {
      top.children.push(id);
      leaves.push(id);
      nodes.push({ id: id++, callFrame: frame(`work${a}_${b}`, 100 + a * 10 + b), hitCount: 0 });
    }
  }
  const samples = Array.from({ length: n }, (_, i) => leaves[(Math.floor(i / 50) * 7 + (i % 3)) % leaves.length]);
  return JSON.stringify({ nodes, startTime: 0, endTime: n * 1000, samples, timeDeltas: new Array(n).fill(1000) });
}

const PROGRAM = `
const crypto = require('crypto');
function hashLoop() { for (let i = 0; i < 40; i++) crypto.pbkdf2Sync('secret', 'salt', 2000, 64, 'sha512'); }
function sortLoop() { const a = []; for (let i = 0; i < 60000; i++) a.push(Math.random()); a.sort((x, y) => x - y); }
function jsonLoop() { const o = []; for (let i = 0; i < 2000; i++) o.push({ i, s: 'x' + i, a: [i, i * 2] }); return JSON.parse(JSON.stringify(o)).length; }
const end = Date.now() + 15000;
while (Date.now() < end) { hashLoop(); sortLoop(); jsonLoop(); }
`;

function repeatedReal(n) {
  writeFileSync(join(work, 'prog.js'), PROGRAM);
  execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '20', '--cpu-prof-name', 'real.cpuprofile', 'prog.js'], {
    cwd: work,
  });
  const p = JSON.parse(readFileSync(join(work, 'real.cpuprofile'), 'utf8'));
  rmSync(join(work, 'real.cpuprofile'));
  console.log(`real run: ${p.samples.length} samples, ${p.nodes.length} nodes`);
  if (p.samples.length < 40000) throw new Error(`the real run took only ${p.samples.length} samples: too few to repeat (machine busy?)`);
  const samples = new Array(n);
  const timeDeltas = new Array(n);
  for (let i = 0; i < n; i++) {
    samples[i] = p.samples[i % p.samples.length];
    timeDeltas[i] = p.timeDeltas[i % p.timeDeltas.length];
  }
  const span = timeDeltas.reduce((a, b) => a + b, 0);
  return JSON.stringify({ ...p, endTime: p.startTime + span, samples, timeDeltas });
}

mkdirSync(work, { recursive: true });
for (const [label, make] of [
  ['synthetic', synthetic],
  ['real run repeated', repeatedReal],
]) {
  const file = join(work, `html-${label.split(' ')[0].replace(/\W/g, '')}.cpuprofile`);
  const out = `${file}.html`;
  try {
    writeFileSync(file, make(N));
    const r = timed(process.execPath, [cli, 'report', file, '--format', 'html', '-o', out]);
    const html = readFileSync(out, 'utf8');
    const data = /<script type="application\/json" id="node-flame-data">([^]*?)<\/script>/.exec(html)?.[1] ?? '';
    let timeline = 0;
    try {
      timeline = JSON.stringify(JSON.parse(data).timeline ?? '').length;
    } catch {
      // an older page: no timeline
    }
    console.log(
      `${label}: ${N} samples, .cpuprofile ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB → html ${statSync(out).size} bytes = ${(statSync(out).size / 2 ** 20).toFixed(2)} MiB ` +
        `(embedded data ${(data.length / 2 ** 20).toFixed(2)} MiB, of it timeline ${(timeline / 2 ** 20).toFixed(2)} MiB) in ${r.wall.toFixed(0)} ms wall, ${r.cpu.toFixed(0)} ms CPU, peak RSS ${r.rss.toFixed(0)} MiB`,
    );
    if (other) {
      const before = `${file}.before.html`;
      const b = timed(process.execPath, [other, 'report', file, '--format', 'html', '-o', before]);
      console.log(
        `  the same with ${other}: html ${statSync(before).size} bytes in ${b.wall.toFixed(0)} ms wall, ${b.cpu.toFixed(0)} ms CPU`,
      );
      if (!process.env.HTML_KEEP) rmSync(before, { force: true });
    }
  } finally {
    rmSync(file, { force: true });
    if (!process.env.HTML_KEEP) rmSync(out, { force: true });
  }
}
