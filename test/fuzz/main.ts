// `npm run fuzz [-- --cases N --seed S --jobs J --from N --only n,n --hang-ms MS --slow-ms MS --no-display]`: the long mutation-fuzz run.
import { join } from 'node:path';
import { fixtures, repoRoot } from '../helpers/paths';
import { loadSeeds, runFuzz, type Failure } from './runner';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const cases = Number(arg('cases') ?? 100000);
  const fuzzSeed = Number(arg('seed') ?? 1);
  const jobs = Number(arg('jobs') ?? 2);
  // --from: cases from..from+cases-1, so one long run can be split over processes (or resumed).
  const from = Number(arg('from') ?? 0);
  const only = arg('only')?.split(',').map(Number) ?? (from ? Array.from({ length: cases }, (_, i) => from + i) : undefined);
  const crashDir = join(repoRoot, 'test', 'fuzz', 'crashes');
  const seeds = loadSeeds(join(fixtures, 'fuzz'));
  console.log(
    `fuzz: ${only ? only.length : cases} cases, seed ${fuzzSeed}, ${jobs} workers, seeds ${seeds.map((s) => `${s.name} (${s.bytes.length} B)`).join(', ')}`,
  );
  let last = Date.now();
  // Ctrl-C (or --minutes) ends the run early with a summary of the cases run so far.
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const minutes = Number(arg('minutes') ?? 0);
  const res = await runFuzz({
    seeds,
    cases,
    fuzzSeed,
    jobs,
    only,
    crashDir,
    stop: stop.signal,
    deadlineMs: minutes ? minutes * 60000 : undefined,
    workerPath: join(repoRoot, 'dist', 'worker.js'),
    hangMs: arg('hang-ms') ? Number(arg('hang-ms')) : undefined,
    slowMs: arg('slow-ms') ? Number(arg('slow-ms')) : undefined,
    display: !process.argv.includes('--no-display'),
    exportFormats: ['json', 'text', 'folded', 'svg'],
    onProgress: (n) => {
      if (Date.now() - last < 10000) return;
      last = Date.now();
      console.log(`  ${n} cases…`);
    },
  });
  const byKind = new Map<string, Failure[]>();
  for (const f of res.failures) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
  console.log(
    `fuzz: ${res.cases} cases in ${(res.ms / 1000).toFixed(1)} s (${((res.ms / Math.max(1, res.cases)) * jobs).toFixed(2)} ms per case per worker): ` +
      `${res.profiles} profiles (${res.withWarnings} with warnings), ${res.profileErrors} ProfileErrors, ${res.exportRefusals} export refusals, ${res.failures.length} failures; ` +
      `slowest ${Math.round(res.slowest.ms)} ms (${res.slowest.seed} #${res.slowest.n})`,
  );
  console.log(
    `per seed: ${Object.entries(res.perSeed)
      .map(([k, v]) => `${k} ${v.cases} cases, ${(v.ms / v.cases).toFixed(1)} ms mean import`)
      .join('; ')}`,
  );
  for (const [kind, fs] of byKind) {
    console.log(`\n${kind}: ${fs.length}`);
    // Same first line of detail = same bug: show each once.
    const seen = new Set<string>();
    for (const f of fs) {
      const key = `${f.seed} ${f.detail.split('\n')[0].replace(/\d+/g, 'N')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      console.log(`- ${f.seed} #${f.n} [${f.ops.join(' ')}] ${f.ms} ms\n  ${f.detail.replace(/\n/g, '\n  ')}\n  saved: ${f.file}`);
    }
  }
  process.exitCode = res.failures.length ? 1 : 0;
}

void main();
