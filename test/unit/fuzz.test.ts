import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fixtures, repoRoot } from '../helpers/paths';
import { loadSeeds, runFuzz } from '../fuzz/runner';
import { mutate } from '../fuzz/mutate';

const workerPath = join(repoRoot, 'dist', 'worker.js');
const seeds = loadSeeds(join(fixtures, 'fuzz'));

test('mutations are reproducible from (seed, case) and really change the input', () => {
  const s = seeds[0];
  const a = mutate(s, 7, 42);
  const b = mutate(s, 7, 42);
  assert.deepEqual(a.ops, b.ops);
  assert.ok(a.bytes.equals(b.bytes));
  let changed = 0;
  for (let n = 0; n < 50; n++) if (!mutate(s, 7, n).bytes.equals(s.bytes)) changed++;
  assert.ok(changed >= 45, `only ${changed} of 50 mutations changed the seed`);
});

test('short fuzz run: every mutated real profile ends in a profile or a one-line ProfileError within 1 s', async () => {
  // A few thousand cases, cut short after 15 s so `npm test` stays bounded, but never before 300 (CI-19 beside
  // benchmarks ran 204 in 15 s): a busy machine takes longer, up to a minute, instead of testing less.
  const stop = new AbortController();
  const t0 = Date.now();
  const cap = setTimeout(() => stop.abort(), 60_000);
  const res = await runFuzz({
    seeds,
    cases: 3000,
    fuzzSeed: 20261122,
    workerPath,
    jobs: 2,
    stop: stop.signal,
    onProgress: (done) => {
      if (done >= 300 && Date.now() - t0 > 15_000) stop.abort();
    },
    exportFormats: ['json', 'text', 'folded', 'svg'],
    display: true,
  });
  clearTimeout(cap);
  console.log(`fuzz: ${res.cases} cases in ${(res.ms / 1000).toFixed(1)} s, ${res.profiles} profiles, ${res.profileErrors} ProfileErrors`);
  assert.ok(res.cases >= 300, `only ${res.cases} cases ran`);
  assert.ok(res.profiles > 0 && res.profileErrors > 0, 'mutations should give both profiles and errors');
  assert.deepEqual(
    res.failures.map((f) => `${f.kind} ${f.seed} #${f.n} [${f.ops.join(' ')}]: ${f.detail.split('\n')[0]}`),
    [],
  );
});

test('a case that outlives its time limit is reported as a hang and the run goes on with a new worker', async () => {
  const res = await runFuzz({ seeds, cases: 3, fuzzSeed: 1, workerPath, jobs: 1, hangMs: 1 });
  assert.equal(res.cases, 3);
  assert.deepEqual(
    res.failures.map((f) => f.kind),
    ['hang', 'hang', 'hang'],
  );
});

test('pprof and .heapprofile seeds get structure operators (long varints, gzip bombs, inlined lines) and deep chains', () => {
  const seen = new Set<string>();
  for (let n = 0; n < 1200; n++) {
    const s = seeds[n % seeds.length];
    if (s.format !== 'pprof' && s.format !== 'heapprofile') continue;
    for (const op of mutate(s, 37, n).ops) seen.add(op.split(':')[0]);
  }
  for (const op of [
    'pprof-long-varint',
    'pprof-length-past-end',
    'pprof-wire',
    'pprof-id',
    'pprof-inlined',
    'pprof-deep-sample',
    'pprof-gzip-bomb',
    'heap-deep-chain',
    'heap-self',
    'heap-wide',
  ])
    assert.ok(seen.has(op), `no ${op} among ${[...seen].join(' ')}`);
});
