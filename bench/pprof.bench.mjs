// `npm run bench pprof [file.pb.gz …]`: reading a pprof, Node Flame against Google's pprof (`go tool pprof -top`,
// the one in the Go toolchain) on the same file. Inputs: the 100 000-node call tree of the folded bench exported to
// pprof by `node-flame report --format pprof`, plus any pprof files given (the guide's 20 s run exported, say).
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTreeFolded } from './bigInputs.mjs';
import { bundleImporters, loadChildMode, timed, which } from './measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const work = join(here, '.work');
const loader = join(work, 'pprof-load.cjs');
const RUNS = 5;

await loadChildMode(loader);

mkdirSync(work, { recursive: true });
const cli = join(root, 'dist/cli.js');
const tree = join(work, 'tree-100k.folded');
writeTreeFolded(tree, 100_000);
const big = join(work, 'tree-100k.pb.gz');
timed(process.execPath, [cli, 'report', tree, '--format', 'pprof', '-o', big]);
const files = [big, ...process.argv.slice(2)];

await bundleImporters(root, loader);

const go = which('go');
for (const file of files) {
  const rows = { go: [], report: [], load: [] };
  for (let i = 0; i < RUNS; i++) {
    if (go) rows.go.push(timed(go, ['tool', 'pprof', '-top', '-nodecount=20', file]));
    rows.report.push(timed(process.execPath, [cli, 'report', file, '--format', 'json', '--top', '20']));
    rows.load.push(timed(process.execPath, [fileURLToPath(import.meta.url), '--load', file]));
  }
  const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
  const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'n/a');
  console.log(
    `\n${file} (${(statSync(file).size / 1024).toFixed(0)} KB): best of ${RUNS} runs each, interleaved; CPU = user+sys of the process`,
  );
  const base = go ? { wall: best(rows.go, 'wall'), cpu: best(rows.go, 'cpu') } : undefined;
  if (base)
    console.log(
      `go tool pprof -top -nodecount=20     wall ${ms(base.wall)}  cpu ${ms(base.cpu)}  peak ${best(rows.go, 'rss').toFixed(0)} MB`,
    );
  else console.log('go: missing; no anchor');
  const w = best(rows.report, 'wall');
  const c = best(rows.report, 'cpu');
  const ratio = base ? `  ratio wall ${(w / base.wall).toFixed(2)}×  cpu ${(c / base.cpu).toFixed(2)}×` : '';
  console.log(`node-flame report --format json -n 20 wall ${ms(w)}  cpu ${ms(c)}  peak ${best(rows.report, 'rss').toFixed(0)} MB${ratio}`);
  const got = rows.load.map((r) => JSON.parse(r.stdout));
  console.log(
    `read into the model, in a fresh process: best ${ms(Math.min(...got.map((g) => g.ms)))} (${got[0].nodes} nodes, weight ${got[0].weight})`,
  );
}
