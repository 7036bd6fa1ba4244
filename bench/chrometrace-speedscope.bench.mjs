// `npm run bench trace` (or `speedscope`): a Chrome trace of two processes (V8's Profile/ProfileChunk events among
// others, and a browser-like one mostly of other events) and a sampled speedscope file with a stack per sample, of about 30 and 120 MB, made from the real fuzz seed
// (bench/bigInputs.mjs), each read by `node-flame report --format json` under /usr/bin/time, against JSON.parse of the
// same file (which only builds the object). `JSONFORMATS_MB=30` picks sizes.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeSpeedscope, makeTrace } from './bigInputs.mjs';
import { timedOrFailure as run, timedText as fmt } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const cli = join(root, 'dist', 'cli.js');
const SIZES = (process.env.JSONFORMATS_MB || '30,120').split(',').map((mb) => Number(mb) * 1e6);
const seeds = join(root, 'test', 'fixtures', 'fuzz');

mkdirSync(work, { recursive: true });
console.log('file | Node Flame | JSON.parse | time ratio (wall, CPU) | RSS ÷ file (JSON.parse)');
for (const [kind, make] of [
  ['trace', makeTrace],
  ['trace, 30 other events a chunk', (file, target, seeds) => makeTrace(file, target, seeds, 500, 30)],
  ['speedscope', makeSpeedscope],
]) {
  for (const target of SIZES) {
    const file = join(work, `big-${kind.split(',')[0]}-${Math.round(target / 1e6)}.json`);
    try {
      const made = await make(file, target, seeds);
      const mb = statSync(file).size / 1e6;
      const nf = run(process.execPath, [cli, 'report', file, '--format', 'json']);
      const read = nf.error ? NaN : JSON.parse(nf.stdout).samples;
      const parse = run(process.execPath, ['-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`]);
      const ratio = !nf.error && !parse.error ? `${(nf.wall / parse.wall).toFixed(2)}×, ${(nf.cpu / parse.cpu).toFixed(2)}×` : '—';
      const rss = (r) => ((r.mib * 2 ** 20) / (mb * 1e6)).toFixed(2);
      console.log(
        `${kind} ${mb.toFixed(0)} MB (${made.samples} samples, ${read} read) | ${fmt(nf)} | ${fmt(parse)} | ${ratio} | ` +
          `${nf.error ? '—' : rss(nf)}${parse.error ? '' : ` (${rss(parse)})`}`,
      );
    } finally {
      rmSync(file, { force: true });
    }
  }
}
