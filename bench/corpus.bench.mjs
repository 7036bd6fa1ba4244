// `npm run bench corpus`: the real-app corpus (test/corpus, and the full set in bench/corpus) profiled in every mode,
// the table program × mode of the corpus test with cross-mode agreement, then two measures on tsc type-checking this
// repo: how fast `report` reads its --prof log (MB of log per CPU second), heap mode's peak RSS against tsc's own.
// `npm run bench corpus small` runs only test/corpus's programs, `… corpus table` skips the two measures, `… corpus
// measures` does only them; `… corpus table only=vitest` profiles only the programs of that name (comma-separated).
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
const onlyNames = process.argv
  .find((a) => a.startsWith('only='))
  ?.slice(5)
  .split(',');
const measuresOnly = process.argv.includes('measures');
const corpora = measuresOnly ? [] : [{ dir: join(root, 'test', 'corpus'), programs: h.SMALL_CORPUS }];
if (!smallOnly && !measuresOnly) corpora.push({ dir: join(root, 'bench', 'corpus'), programs: h.FULL_CORPUS });
const cli = join(root, 'dist', 'cli.js');
const MODES = ['cpu-prof', 'prof', 'perf'];
const HEAP = new Set(['tsc', 'prettier']);

const results = [];
const noise = [];
for (const c of corpora) {
  const inst = h.installCorpus(c.dir);
  console.log(`${c.dir}: ${inst.installMs ? `installed in ${(inst.installMs / 1000).toFixed(1)} s` : 'already installed'} (${inst.dir})`);
  for (const p of c.programs) {
    if (onlyNames && !onlyNames.includes(p.name)) continue;
    const w = h.workFolder(c.dir, inst.dir, p);
    for (const mode of HEAP.has(p.name) ? [...MODES, 'heap'] : MODES) {
      const r = await h.profileProgram(p, mode, w, { killAfterMs: 300_000 });
      results.push(r);
      console.log(`  ${p.name} ${mode}: exit ${r.code}, ${(r.ms / 1000).toFixed(1)} s`);
      if (r.code !== 0) console.log(r.output.slice(-1500));
    }
    // The noise floor of the agreement: a second cpu-prof run of the same program against the first.
    if (c.programs === h.SMALL_CORPUS) {
      const first = results.find((r) => r.program === p.name && r.mode === 'cpu-prof');
      const again = await h.profileProgram(p, 'cpu-prof', w, { killAfterMs: 300_000 });
      if (first?.self && again.self) noise.push([p.name, h.agreement(first.self, again.self)]);
    }
    rmSync(w, { recursive: true, force: true });
  }
}
for (const [name, a] of noise) {
  const worst = a.rows.reduce((m, r) => Math.max(m, Math.abs(r.otherShare - r.cpuShare)), 0);
  const worstRel = a.rows.reduce((m, r) => Math.max(m, Math.abs(r.otherShare - r.cpuShare) / r.cpuShare), 0);
  console.log(
    `cpu-prof against a second cpu-prof run, ${name}: ${a.agree}/${a.rows.length} agree, at line ${a.found}/${a.rows.length}, ` +
      `largest difference ${(worst * 100).toFixed(1)} points (${(worstRel * 100).toFixed(0)} % of the share)`,
  );
}
const rows = h.withAgreement(results);
if (rows.length) printTable(rows);
function printTable(rows) {
  console.log(`\n${h.formatTable(rows)}\n`);
  console.log(
    `Agreement: a cpu-prof function (≥ 1 % self) agrees when its share of JavaScript samples is within ` +
      `max(${h.AGREEMENT_TOLERANCE.abs * 100} points, ${h.AGREEMENT_TOLERANCE.rel * 100} %) of cpu-prof's.`,
  );
  console.log(`Disagreements:\n${h.formatDisagreements(rows)}\n`);
  // A wrong line is the one answer a profiler must never give: each one named, to be looked at.
  for (const r of results)
    for (const w of r.wrongLines)
      console.log(`Wrong line: ${r.program} ${r.mode}: ${w.name} at ${w.file}:${w.line}, which reads ${JSON.stringify(w.text)}`);
}

if (!process.argv.includes('table')) {
  const testCorpus = join(root, 'test', 'corpus');
  const tscWork = h.workFolder(
    testCorpus,
    h.installCorpus(testCorpus).dir,
    h.SMALL_CORPUS.find((p) => p.name === 'tsc'),
  );
  // The two measures on a real compile: the corpus's tsc type-checking Node Flame itself (tsconfig.json of this repo).
  const tsc = join(tscWork, 'node_modules', 'typescript', 'lib', 'tsc.js');
  const tscArgs = [tsc, '--noEmit', '-p', root];
  const out = join(tscWork, '.runs', 'measures');
  // Reading real --prof logs: the log's MB per CPU second of `report`, best of 3.
  timed(process.execPath, [cli, 'profile', '--mode', 'prof', '--no-report', '--out', out, '--', 'node', ...tscArgs]);
  const profRun = join(
    out,
    readdirSync(out).find((d) => d.endsWith('-prof')),
  );
  const logs = readdirSync(profRun).filter((f) => f.endsWith('-v8.log'));
  const mb = logs.reduce((s, f) => s + statSync(join(profRun, f)).size, 0) / 1e6;
  let best;
  for (let i = 0; i < 3; i++) {
    const t = timed(process.execPath, [cli, 'report', profRun, '--top', '5']);
    if (!best || t.cpu < best.cpu) best = t;
  }
  console.log(
    `tsc --noEmit -p . (this repo) --prof log (${mb.toFixed(1)} MB) → report: ${best.wall.toFixed(0)} ms wall, ` +
      `${best.cpu.toFixed(0)} ms CPU, ${best.rss.toFixed(0)} MB peak: ${(mb / (best.cpu / 1000)).toFixed(1)} MB/s of CPU`,
  );
  // Heap mode's memory: the largest process's peak RSS (GNU time's %M over the command's processes), best of 2.
  const peak = (args) => Math.min(...[0, 1].map(() => timed(process.execPath, args).rss));
  const plain = timed(process.execPath, tscArgs);
  const plainRss = peak(tscArgs);
  const heapArgs = [cli, 'profile', '--mode', 'heap', '--no-report', '--out', out, '--', 'node', ...tscArgs];
  const heap = timed(process.execPath, heapArgs);
  const heapRss = peak(heapArgs);
  console.log(
    `tsc --noEmit -p . (this repo) peak RSS: unprofiled ${plainRss.toFixed(0)} MB (${plain.cpu.toFixed(0)} ms CPU), ` +
      `heap mode ${heapRss.toFixed(0)} MB (${heap.cpu.toFixed(0)} ms CPU): ×${(heapRss / plainRss).toFixed(2)} RSS, ` +
      `×${(heap.cpu / plain.cpu).toFixed(2)} CPU`,
  );
  rmSync(tscWork, { recursive: true, force: true });
}
