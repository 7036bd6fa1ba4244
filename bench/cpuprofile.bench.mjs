// `npm run bench cpuprofile`: .cpuprofiles of about 30, 110, 240, 600 MB and 1 GB (the last two past V8's ~512 MB
// string limit), made by repeating the real fuzz seed (bench/bigInputs.mjs), each read by `node-flame report --format
// json` under /usr/bin/time, against JSON.parse of the same file (which only builds the object) where one string can
// hold it, and against CPUpro's published figures. `CPUPROFILE_MB=262` picks sizes (generator targets, in MB).
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCpuProfile } from './bigInputs.mjs';
import { timedOrFailure as run, timedText as fmt } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const cli = join(root, 'dist', 'cli.js');
// The generator's estimate runs short by about 8 %: these targets give files of about 30, 110, 240, 600 and 1000 MB.
const SIZES = (process.env.CPUPROFILE_MB || '33,120,262,650,1085').split(',').map((mb) => Number(mb) * 1e6);

// CPUpro (npm `cpupro` 0.7.0) installs here (`npm install --ignore-scripts`) and writes its report, but the report page
// does not load in headless Chromium on this machine ("discoveryLoader is not defined", then its data fetch fails), so
// it is not run side by side: these are its release notes' load + first-render figures, on their machine.
const CPUPRO_PUBLISHED = [
  [33, 0.5],
  [114, 1.3],
  [239, 2.8],
  [418, 4.6],
];

mkdirSync(work, { recursive: true });
console.log('size | Node Flame | JSON.parse | time ratio (wall, CPU) | RSS ÷ file | CPUpro published (their machine)');
for (const target of SIZES) {
  const file = join(work, `big-${Math.round(target / 1e6)}.cpuprofile`);
  try {
    const made = await makeCpuProfile(file, target, join(root, 'test', 'fixtures', 'fuzz'), 2000);
    const mb = statSync(file).size / 1e6;
    const nf = run(process.execPath, [cli, 'report', file, '--format', 'json']);
    let samples = NaN;
    if (!nf.error) samples = JSON.parse(nf.stdout).samples;
    const parse = run(process.execPath, ['-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`]);
    const ratio = !nf.error && !parse.error ? `${(nf.wall / parse.wall).toFixed(2)}×, ${(nf.cpu / parse.cpu).toFixed(2)}×` : '—';
    const near = CPUPRO_PUBLISHED.find(([m]) => Math.abs(m - mb) / m < 0.15);
    console.log(
      `${mb.toFixed(0)} MB (${made.nodes} nodes, ${made.samples} samples, ${samples} read) | ${fmt(nf)} | ` +
        `${parse.error ? 'fails (one string cannot hold it)' : fmt(parse)} | ${ratio} | ` +
        `${nf.error ? '—' : ((nf.mib * 2 ** 20) / (mb * 1e6)).toFixed(2)}${parse.error ? '' : ` (JSON.parse ${((parse.mib * 2 ** 20) / (mb * 1e6)).toFixed(2)})`} | ` +
        (near
          ? `${near[1]} s for ${near[0]} MB${nf.error ? '' : ` (Node Flame ${(nf.wall / near[1]).toFixed(2)}× of it, different machines)`}`
          : '—'),
    );
  } finally {
    rmSync(file, { force: true });
  }
}
