// `npm run bench corpus`: the real-app corpus (test/corpus, and the full set in bench/corpus) profiled in every mode,
// the table program × mode of the corpus test with cross-mode agreement, then two measures on tsc: how fast `report`
// reads its --prof log (MB of log per CPU second) and heap mode's peak RSS against the unprofiled compiler's.
// `npm run bench corpus -- small` runs only test/corpus's programs.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timed } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, 'bench', '.work');
mkdirSync(work, { recursive: true });
const harness = join(work, 'corpus-harness.cjs');
const esbuild = await import('esbuild');
await esbuild.build({
  stdin: {
    contents: ['corpusInstall', 'corpusPrograms', 'corpusRun', 'corpusTable', 'agreement']
      .map((m) => `export * from './test/helpers/${m}';`)
      .join('\n'),
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile: harness,
  logLevel: 'warning',
});
const { createRequire } = await import('node:module');
const h = createRequire(import.meta.url)(harness);

const smallOnly = process.argv.includes('small');
const corpora = [{ dir: join(root, 'test', 'corpus'), programs: h.SMALL_CORPUS }];
if (!smallOnly) corpora.push({ dir: join(root, 'bench', 'corpus'), programs: h.FULL_CORPUS });
const cli = join(root, 'dist', 'cli.js');
const MODES = ['cpu-prof', 'prof', 'perf'];
const HEAP = new Set(['tsc', 'prettier']);

const results = [];
let tscWork;
let tscProfRun;
for (const c of corpora) {
  const inst = h.installCorpus(c.dir);
  console.log(`${c.dir}: ${inst.installMs ? `installed in ${(inst.installMs / 1000).toFixed(1)} s` : 'already installed'} (${inst.dir})`);
  for (const p of c.programs) {
    const w = h.workFolder(c.dir, inst.dir, p);
    for (const mode of HEAP.has(p.name) ? [...MODES, 'heap'] : MODES) {
      const r = await h.profileProgram(p, mode, w, { killAfterMs: 300_000 });
      results.push(r);
      console.log(`  ${p.name} ${mode}: exit ${r.code}, ${(r.ms / 1000).toFixed(1)} s`);
      if (r.code !== 0) console.log(r.output.slice(-1500));
      if (p.name === 'tsc' && mode === 'prof') tscProfRun = r.runDir;
    }
    if (p.name === 'tsc') tscWork = w;
    else rmSync(w, { recursive: true, force: true });
  }
}
const rows = h.withAgreement(results);
console.log(`\n${h.formatTable(rows)}\n`);
console.log(
  `Agreement: a cpu-prof function (≥ 1 % self) agrees when its share of JavaScript samples is within ` +
    `max(${h.AGREEMENT_TOLERANCE.abs * 100} points, ${h.AGREEMENT_TOLERANCE.rel * 100} %) of cpu-prof's.`,
);
console.log(`Disagreements:\n${h.formatDisagreements(rows)}\n`);

if (tscWork && tscProfRun) {
  // Reading real --prof logs: the log's MB per CPU second of `report`, best of 3.
  const logs = readdirSync(tscProfRun).filter((f) => f.endsWith('-v8.log'));
  const mb = logs.reduce((s, f) => s + statSync(join(tscProfRun, f)).size, 0) / 1e6;
  let best;
  for (let i = 0; i < 3; i++) {
    const t = timed(process.execPath, [cli, 'report', tscProfRun, '--top', '5']);
    if (!best || t.cpu < best.cpu) best = t;
  }
  console.log(
    `tsc --prof log (${mb.toFixed(1)} MB) → report: ${best.wall.toFixed(0)} ms wall, ${best.cpu.toFixed(0)} ms CPU, ` +
      `${best.rss.toFixed(0)} MB peak: ${(mb / (best.cpu / 1000)).toFixed(1)} MB/s of CPU`,
  );
  // Heap mode's memory: the largest process's peak RSS (GNU time's %M over the command's processes), best of 2.
  const tsc = join(tscWork, 'node_modules', 'typescript', 'lib', 'tsc.js');
  const peak = (args) => Math.min(...[0, 1].map(() => timed(process.execPath, args).rss));
  const plain = timed(process.execPath, [tsc, '-p', tscWork]);
  const plainRss = peak([tsc, '-p', tscWork]);
  const heapArgs = [
    cli,
    'profile',
    '--mode',
    'heap',
    '--no-report',
    '--out',
    join(tscWork, '.runs', 'rss'),
    '--',
    'node',
    tsc,
    '-p',
    tscWork,
  ];
  const heap = timed(process.execPath, heapArgs);
  const heapRss = peak(heapArgs);
  console.log(
    `tsc peak RSS: unprofiled ${plainRss.toFixed(0)} MB (${plain.cpu.toFixed(0)} ms CPU), heap mode ${heapRss.toFixed(0)} MB ` +
      `(${heap.cpu.toFixed(0)} ms CPU): ×${(heapRss / plainRss).toFixed(2)} RSS, ×${(heap.cpu / plain.cpu).toFixed(2)} CPU`,
  );
  rmSync(tscWork, { recursive: true, force: true });
}
