// `npm run bench cpuprofile`: .cpuprofiles of about 240 MB and 600 MB (past V8's ~512 MB string limit), made by
// repeating the real fuzz seed (bench/bigInputs.mjs), each read by `node-flame report --format json` under
// /usr/bin/time, against JSON.parse of the same file (which only builds the object) where one string can hold it.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCpuProfile } from './bigInputs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const cli = join(root, 'dist', 'cli.js');
// The generator's estimate runs short by about 8 %: these targets give files of about 240 and 600 MB.
const SIZES = (process.env.CPUPROFILE_MB || '262,650').split(',').map((mb) => Number(mb) * 1e6);

/** Wall seconds, peak RSS in MiB, exit status and stdout of a command under /usr/bin/time. */
function timed(args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const [secs, kb] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { secs, mib: kb / 1024, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

mkdirSync(work, { recursive: true });
for (const target of SIZES) {
  const file = join(work, `big-${Math.round(target / 1e6)}.cpuprofile`);
  try {
    const made = await makeCpuProfile(file, target, join(root, 'test', 'fixtures', 'fuzz'), 2000);
    const mb = statSync(file).size / 1e6;
    const nf = timed([process.execPath, cli, 'report', file, '--format', 'json']);
    let samples = NaN;
    try {
      samples = JSON.parse(nf.stdout).samples;
    } catch {
      console.log(nf.stderr.split('\n').slice(0, 3).join('\n'));
    }
    const parse = timed([process.execPath, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`]);
    const parseSays = parse.status === 0 ? `${parse.secs.toFixed(2)} s, ${parse.mib.toFixed(0)} MiB` : 'fails (one string cannot hold it)';
    console.log(
      `${mb.toFixed(0)} MB .cpuprofile (${made.nodes} nodes, ${made.samples} samples): Node Flame ${nf.secs.toFixed(2)} s, ` +
        `peak RSS ${nf.mib.toFixed(0)} MiB (${((nf.mib * 2 ** 20) / (mb * 1e6)).toFixed(2)}× the file), exit ${nf.status}, ${samples} samples read; ` +
        `JSON.parse of the file ${parseSays}` +
        (parse.status === 0 ? ` → ${(nf.secs / parse.secs).toFixed(2)}×` : ''),
    );
  } finally {
    rmSync(file, { force: true });
  }
}
