// `npm run bench folded`: folded stacks of a 100 000-node call tree (the viewer e2e's file, 7 MB) → SVG flame graph,
// against inferno-flamegraph on the same file in the same run; the same lines sorted as FlameGraph writes them; and the
// in-process read into the model, where the editor spends its time before the first paint.
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTreeFolded } from './bigInputs.mjs';
import { bundleImporters, loadChildMode, timed, which } from './measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const work = join(here, '.work');
const loader = join(work, 'folded-load.cjs');
const RUNS = 3;

await loadChildMode(loader);

const inferno = which('inferno-flamegraph');
mkdirSync(work, { recursive: true });
const files = { tree: join(work, 'tree-100k.folded'), sorted: join(work, 'tree-100k.sorted.folded') };
const lines = writeTreeFolded(files.tree, 100_000);
writeFileSync(files.sorted, `${lines.sort().join('\n')}\n`);
console.log(`input: ${files.tree} (${(statSync(files.tree).size / 1048576).toFixed(1)} MB, ${lines.length} lines), and sorted`);

await bundleImporters(root, loader);

const cli = join(root, 'dist/cli.js');
for (const [label, file] of Object.entries(files)) {
  const rows = { inferno: [], svg: [], load: [] };
  for (let i = 0; i < RUNS; i++) {
    if (inferno) rows.inferno.push(timed('/bin/sh', ['-c', `"${inferno}" "${file}" > "${join(work, 'inferno-tree.svg')}"`]));
    rows.svg.push(timed(process.execPath, [cli, 'report', file, '--format', 'svg', '-o', join(work, 'ours-tree.svg')]));
    rows.load.push(timed(process.execPath, [fileURLToPath(import.meta.url), '--load', file]));
  }
  const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
  const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'n/a');
  console.log(`\n${label}: best of ${RUNS} runs each, interleaved; CPU = user+sys of the process`);
  const base = inferno ? { wall: best(rows.inferno, 'wall'), cpu: best(rows.inferno, 'cpu') } : undefined;
  if (base)
    console.log(
      `inferno-flamegraph → SVG              wall ${ms(base.wall)}  cpu ${ms(base.cpu)}  peak ${best(rows.inferno, 'rss').toFixed(0)} MB`,
    );
  else console.log('inferno-flamegraph: missing (cargo install inferno); no anchor');
  const w = best(rows.svg, 'wall');
  const c = best(rows.svg, 'cpu');
  const ratio = base ? `  ratio wall ${(w / base.wall).toFixed(2)}×  cpu ${(c / base.cpu).toFixed(2)}×` : '';
  console.log(`node-flame report --format svg        wall ${ms(w)}  cpu ${ms(c)}  peak ${best(rows.svg, 'rss').toFixed(0)} MB${ratio}`);
  const got = rows.load.map((r) => JSON.parse(r.stdout));
  console.log(
    `read into the model, in a fresh process: best ${ms(Math.min(...got.map((g) => g.ms)))} (${got[0].nodes} nodes, weight ${got[0].weight})`,
  );
}
