// Issue 37, item 14: regular expressions from the user (--exclude, the search box) and from a profile's
// saved view run on every frame name on the host's thread. Polynomial shapes are refused, names are tried
// on their head only, and whatever passes is given up past a time budget, each in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cli } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';
import { loadProfile } from '../../src/core/importers';
import { safeRegex, UnsafeRegexError, MAX_MATCH_CHARS } from '../../src/core/model/transforms';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { DiffSession } from '../../src/core/viewer/diffSession';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';

const write = tempFiles('nf-regex-', '.folded');
// Frame names that are long runs of `a`: where `a*a*a*a*a*!` backtracks for minutes.
const runs = write(Array.from({ length: 200 }, (_, i) => `main;${'a'.repeat(5000)}${i} 1`).join('\n') + '\n');

test('safeRegex refuses side-by-side and too many open-ended repetitions, keeps ordinary patterns', () => {
  for (const p of ['a*a*a*a*a*!', '.*.*x', '\\w+\\d*', 'a*b?a*!', '.*a.*a.*!', 'a{0,500}a{0,500}!', 'a{3,}a+'])
    assert.throws(
      () => safeRegex(p),
      (e: unknown) => e instanceof UnsafeRegexError && /polynomial/.test(e.message),
      p,
    );
  for (const p of ['^handle', 'parse(Json|Xml)$', 'node_modules/.*/lib', 'a{2,4}b{1,3}', 'fo+bar', '.*Sync$']) assert.ok(safeRegex(p));
});

test('--exclude a*a*a*a*a*! ends in one line, exit 2, within 3 s (was more than 60 s)', () => {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, 'report', runs, '--exclude', 'a*a*a*a*a*!'], { encoding: 'utf8', timeout: 30000 });
  const ms = performance.now() - t0;
  console.log(`--exclude a*a*a*a*a*!: ${ms.toFixed(0)} ms, exit ${r.status}`);
  assert.equal(r.status, 2, r.stderr);
  // A usage error: one line saying why, then the usage reminder every usage error ends with.
  assert.match(r.stderr.split('\n')[0], /cannot use --exclude "a\*a\*a\*a\*a\*!": .*polynomial/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.ok(ms < 3000, `${ms.toFixed(0)} ms`);
});

test('the search box: a polynomial pattern is answered with an error at once, an allowed one within the budget', async () => {
  const p = await loadProfile(runs, { sourceMaps: false });
  const s = new ViewerSession(p, 'runs', runs);
  let t0 = performance.now();
  const bad = s.search('top', 'a*a*a*a*a*!', true);
  assert.ok(bad.type === 'search' && bad.error && /polynomial/.test(bad.error), JSON.stringify(bad));
  assert.ok(performance.now() - t0 < 500);
  // Two repetitions apart pass the shape rules; tried on the first MAX_MATCH_CHARS of each name, all of
  // them answer, or the time budget gives up, within the budget and one name.
  t0 = performance.now();
  const ok = s.search('top', '.*a.*!', true);
  const ms = performance.now() - t0;
  console.log(
    `search .*a.*! over 200 names of 5 000 a's (tried on ${MAX_MATCH_CHARS}): ${ms.toFixed(0)} ms, ${ok.type === 'search' ? (ok.error ?? 'answered') : ''}`,
  );
  assert.ok(ok.type === 'search' && (!ok.error || /took more than 2000 ms/.test(ok.error)), JSON.stringify(ok));
  assert.ok(ms < 3000, `${ms.toFixed(0)} ms`);
  const hit = s.search('top', 'a{5}\\d', true);
  assert.ok(hit.type === 'search' && !hit.error && hit.fraction === 0, 'a digit past the head of the name is not seen');
});

test("the comparison's search: the page matches plain text only, the host guards a pattern a page sends like the viewer's", async () => {
  // The page never makes a RegExp of what is typed (its box is plain text, regex: false).
  const page = ['diff.ts', 'diffChanges.ts', 'diffColor.ts'].map((f) => readFileSync(join(repoRoot, 'webview', f), 'utf8')).join('\n');
  assert.doesNotMatch(page, /RegExp\(/);
  assert.match(page, /type: 'search', tree: 'top', term, regex: false/);
  const before = await loadProfile(runs, { sourceMaps: false });
  const after = await loadProfile(runs, { sourceMaps: false });
  const side = (label: string) => ({ label, path: runs, format: after.format, totalWeight: after.tree.weight });
  const s = new DiffSession(before, after, { before: side('a'), after: side('b') });
  let t0 = performance.now();
  const bad = s.search('after', 'a*a*a*a*a*!', true);
  assert.ok(bad.type === 'search' && bad.error && /polynomial/.test(bad.error), JSON.stringify(bad));
  assert.ok(performance.now() - t0 < 500);
  t0 = performance.now();
  const ok = s.search('before', '.*a.*!', true);
  const ms = performance.now() - t0;
  console.log(
    `diff search .*a.*! over 200 names of 5 000 a's: ${ms.toFixed(0)} ms, ${ok.type === 'search' ? (ok.error ?? 'answered') : ''}`,
  );
  assert.ok(ok.type === 'search' && (!ok.error || /took more than 2000 ms/.test(ok.error)), JSON.stringify(ok));
  assert.ok(ms < 3000, `${ms.toFixed(0)} ms`);
  // Plain text over the same names: every sample's stack holds a name with "aaaa".
  const plain = s.search('after', 'aaaa', false);
  assert.ok(plain.type === 'search' && plain.fraction === 1, JSON.stringify(plain));
});
