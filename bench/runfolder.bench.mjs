// `npm run bench runfolder`: a cpu-prof run folder of 20 processes, each with a ~20 MB .cpuprofile (the fuzz seed
// repeated by bench/bigInputs.mjs, one copy per pid), opened as one merged view by `node-flame report --format json`
// under /usr/bin/time; printed against JSON.parse of all 20 files in one process (what a reader that parses whole
// files would at least pay). `RUN_PROCS=20 RUN_MB=21` change the shape.
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCpuProfile } from './bigInputs.mjs';
import { timed } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'bench', '.work', 'run-20x20');
const cli = join(root, 'dist', 'cli.js');
const PROCS = Number(process.env.RUN_PROCS || 20);
// The generator runs about 8 % short of its target.
const TARGET = Number(process.env.RUN_MB || 21.7) * 1e6;

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
try {
  const first = join(dir, 'seed.cpuprofile');
  const made = await makeCpuProfile(first, TARGET, join(root, 'test', 'fixtures', 'fuzz'), 200);
  const names = [];
  const processes = [];
  const t0 = Date.parse('2026-11-26T00:00:00Z');
  for (let k = 0; k < PROCS; k++) {
    const pid = 1000 + k;
    const name = `CPU.20261126.000000.${pid}.0.001.cpuprofile`;
    copyFileSync(first, join(dir, name));
    names.push(name);
    processes.push({
      pid,
      ppid: k === 0 ? 1 : 1000,
      command: ['node', `worker${k}.js`],
      exitCode: 0,
      startedAt: new Date(t0 + k * 10).toISOString(),
      profiles: [name],
    });
  }
  rmSync(first);
  const run = {
    version: 1,
    mode: 'cpu-prof',
    command: ['node', 'main.js'],
    cwd: dir,
    pid: 1000,
    nodePid: 1000,
    profiles: names,
    processes,
  };
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run, null, 1));
  const each = statSync(join(dir, names[0])).size / 1e6;
  const all = each * PROCS;
  const nf = timed(process.execPath, [cli, 'report', dir, '--format', 'json']);
  const out = JSON.parse(nf.stdout);
  const files = JSON.stringify(names.map((n) => join(dir, n)));
  const parse = timed(process.execPath, ['-e', `for (const f of ${files}) JSON.parse(require('fs').readFileSync(f, 'utf8'))`]);
  console.log(
    `run folder of ${PROCS} processes × ${each.toFixed(1)} MB (${made.nodes} nodes, ${made.samples} samples each; ${all.toFixed(0)} MB): ` +
      `Node Flame merged ${(nf.wall / 1000).toFixed(2)} s wall, ${(nf.cpu / 1000).toFixed(2)} s CPU, peak RSS ${nf.rss.toFixed(0)} MiB ` +
      `(${((nf.rss * 2 ** 20) / (all * 1e6)).toFixed(2)}× all files, ${((nf.rss * 2 ** 20) / (each * 1e6)).toFixed(2)}× one), ` +
      `${out.samples} samples, ${out.processes?.length ?? '?'} processes; ` +
      `JSON.parse of the ${PROCS} files ${(parse.wall / 1000).toFixed(2)} s wall, ${(parse.cpu / 1000).toFixed(2)} s CPU, ${parse.rss.toFixed(0)} MiB ` +
      `→ ${(nf.wall / parse.wall).toFixed(2)}× wall, ${(nf.cpu / parse.cpu).toFixed(2)}× CPU`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
