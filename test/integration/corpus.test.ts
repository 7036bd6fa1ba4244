// The real-app corpus (issue #30; cross-mode agreement of #29): real npm programs installed from the registry at
// pinned versions (test/corpus/package-lock.json) profiled in every mode through the CLI, checked from outside.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { installCorpus } from '../helpers/corpusInstall';
import { SMALL_CORPUS } from '../helpers/corpusPrograms';
import { profileProgram, workFolder, type CorpusMode, type CorpusResult } from '../helpers/corpusRun';
import { formatDisagreements, formatTable, withAgreement } from '../helpers/corpusTable';

const corpusDir = join(repoRoot, 'test', 'corpus');
const MODES: CorpusMode[] = ['cpu-prof', 'prof', 'perf'];
const HEAP: ReadonlySet<string> = new Set(['tsc', 'prettier']);
/** Share of cpu-prof's hot functions (≥ 1 % self) whose share the mode matches within AGREEMENT_TOLERANCE. */
const MIN_AGREEMENT = 0.6;

/**
 * Checks that fail today for bugs being fixed elsewhere: `check` alone covers every program and mode, `check mode`
 * one mode, `check mode program` one run. Each is a `todo` subtest (run and reported, not failing the suite): delete
 * the entry once the fix is merged.
 */
const KNOWN_FAILING: Record<string, string> = {};

/** Share of cpu-prof's hot functions prof and perf must find at their file:line:column (inlining takes the odd one). */
const MIN_FOUND = 0.8;

function knownFailing(check: string, mode: string, program: string): string | undefined {
  return KNOWN_FAILING[`${check} ${mode} ${program}`] ?? KNOWN_FAILING[`${check} ${mode}`] ?? KNOWN_FAILING[check];
}

const foundShare = (a: { found: number; rows: unknown[] }) => (a.rows.length ? a.found / a.rows.length : 1);

/** The first few of a long list, for an assertion's message. */
const some = (xs: string[]) => xs.slice(0, 8).join('\n') + (xs.length > 8 ? `\n… ${xs.length - 8} more` : '');

const results: CorpusResult[] = [];
let installDir = '';

test('the corpus installs from the npm registry at its pinned versions', { timeout: 10 * 60_000 }, () => {
  const r = installCorpus(corpusDir);
  installDir = r.dir;
  if (r.installMs) process.stdout.write(`corpus installed in ${(r.installMs / 1000).toFixed(1)} s into ${r.dir}\n`);
});

for (const program of SMALL_CORPUS) {
  const modes: CorpusMode[] = HEAP.has(program.name) ? [...MODES, 'heap'] : MODES;
  test(`corpus: ${program.name}`, { timeout: 8 * 60_000 }, async (t) => {
    assert.ok(installDir, 'the corpus is installed');
    const work = workFolder(corpusDir, installDir, program);
    t.after(() => rmSync(work, { recursive: true, force: true }));
    const mine: CorpusResult[] = [];
    for (const mode of modes) {
      const r = await profileProgram(program, mode, work);
      results.push(r);
      mine.push(r);
    }
    // The oracle is one run of a real program, and a loaded machine changes when its JIT catches up: a CI run measured
    // prettier's babel tokenizer `jt` at 64 % of cpu-prof's JavaScript samples against 1 % in prof and perf (under 4 %
    // when run again). Where prof or perf disagree with it, cpu-prof is recorded once more and the run that agrees
    // better is the oracle (said in the output).
    // Its hot list is the oracle of where functions are found too: tsc's prof run under load found 10 of 13 (a function
    // cpu-prof saw hot that one run of prof hardly sampled), 13 of 13 on a quiet machine.
    const agreeing = (rs: CorpusResult[]) =>
      withAgreement(rs).reduce((sum, row) => sum + (row.agreement?.ratio ?? 0) + (row.agreement ? foundShare(row.agreement) : 0), 0);
    const short = (a: { ratio: number; found: number; rows: unknown[] } | undefined) =>
      !!a && ((!program.noisyShares && a.ratio < MIN_AGREEMENT) || a.found < Math.ceil(MIN_FOUND * a.rows.length));
    if (withAgreement(mine).some((row) => short(row.agreement))) {
      const i = mine.findIndex((r) => r.mode === 'cpu-prof');
      const again = await profileProgram(program, 'cpu-prof', work);
      const other = mine.map((r, k) => (k === i ? again : r));
      t.diagnostic(`cpu-prof recorded again: agreement ${agreeing(mine).toFixed(2)} → ${agreeing(other).toFixed(2)}`);
      if (i >= 0 && agreeing(other) > agreeing(mine)) {
        results[results.indexOf(mine[i])] = again;
        mine[i] = again;
      }
    }
    for (const row of withAgreement(mine)) {
      const r = row.result;
      const check = (name: string, fn: () => void) =>
        t.test(`${name} (${r.mode})`, { todo: knownFailing(name, r.mode, program.name) }, fn as (t: TestContext) => void);
      await check('the program ran and was profiled', () => {
        assert.equal(r.code, 0, r.output.slice(-2000));
        assert.ok(r.runDir, r.output.slice(-2000));
      });
      await check('every Node process is in the run', () => {
        assert.ok(r.processesRan > 0, 'the recorder saw the program start');
        assert.equal(r.processesFound, r.processesRan, JSON.stringify(r.ran));
      });
      await check('every JS thread is in the run', () =>
        assert.equal(r.threadsFound, r.threadsRan, `${JSON.stringify(r.ran)}\nfound: ${JSON.stringify(r.self?.jsThreadNames)}`),
      );
      await check('hot functions are found', () => assert.deepEqual(r.missingHot, []));
      await check("reported lines declare the function (program's own code)", () =>
        assert.equal(r.wrongLines.length, 0, some(r.wrongLines.map((w) => `${w.name} ${w.file}:${w.line}: ${w.text}`))),
      );
      await check('no duplicate rows', () => assert.equal(r.duplicates.length, 0, some(r.duplicates)));
      await check('profile shows every warning of report', () => assert.equal(r.warningsNotShown.length, 0, some(r.warningsNotShown)));
      const a = row.agreement;
      if (!a) continue;
      // One miss a run is seen (tsc's bindEach in prof, internIdentifier in perf, prettier's minified estree function):
      // likely inlining — prof and perf sample machine code, where an inlined function is its caller's, while cpu-prof
      // names it from V8's inlining tables (not confirmed).
      await check('cpu-prof hot functions found at their file:line', () =>
        assert.ok(
          a.found >= Math.ceil(MIN_FOUND * a.rows.length),
          `${a.found}/${a.rows.length}: ${some(a.rows.filter((x) => !x.found).map((x) => `${x.name} ${x.key}`))}`,
        ),
      );
      if (program.noisyShares) {
        t.diagnostic(`${r.mode} agreement ${a.agree}/${a.rows.length}, not asserted: ${program.noisyShares}`);
        continue;
      }
      await check('agrees with cpu-prof', () =>
        assert.ok(a.ratio >= MIN_AGREEMENT, `${a.agree}/${a.rows.length} within tolerance:\n${formatDisagreements([row])}`),
      );
    }
  });
}

test.after(() => {
  if (!results.length) return;
  const rows = withAgreement(results);
  const text = `${formatTable(rows)}\n\nDisagreements with cpu-prof:\n${formatDisagreements(rows)}\n`;
  process.stdout.write(`\n${text}`);
  // Also kept beside the build, for a reader of a CI log that cut the output.
  writeFileSync(join(repoRoot, 'out', 'corpus-table.txt'), text);
});
