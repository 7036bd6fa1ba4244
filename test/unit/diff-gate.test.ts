import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffFunctions, gateShares, ProfileBuilder, type Category } from '../../src/core/model';
import { comparableTotals, findRegressions, toGithubAnnotations, toMarkdown } from '../../src/core/exporters/ciReport';

const CWD = '/repo';

/** The guide's shape: a handler in the repository calling node's pbkdf2Sync, which runs OpenSSL; start-up costs `startup` ticks. */
function run(opts: { hashing: number; startup: number; other: number }) {
  const b = new ProfileBuilder('v8log');
  const fr = (name: string, category: Category, file = '', line = 0) => b.frame({ name, file, line, column: 0, category });
  const handler = fr('(anonymous)', 'app', '/repo/app.js', 23);
  const sync = fr('pbkdf2Sync', 'node', 'node:internal/crypto/pbkdf2', 62);
  const sha = fr('sha512_block_data_order', 'shared-lib');
  const compile = fr('compileForInternalLoader', 'node', 'node:internal/bootstrap/realm', 383);
  const route = fr('handle', 'dependency', '/repo/node_modules/express/lib/router/layer.js', 86);
  b.sample([handler, sync, sha], opts.hashing);
  b.sample([compile], opts.startup);
  b.sample([route], opts.other);
  // The call's line in the handler ran most.
  b.lineHit('/repo/app.js', 31, 0, opts.hashing);
  b.lineHit('/repo/app.js', 26, 1, 1);
  return b.build();
}

const asyncRun = run({ hashing: 0, startup: 300, other: 150 });
const syncRun = run({ hashing: 6000, startup: 300, other: 150 });

test('a function that got slower trips the gate, annotated at the hottest line of its caller in the repository', () => {
  const changes = diffFunctions(asyncRun, syncRun);
  const r = findRegressions(changes, asyncRun, syncRun, 5, CWD);
  assert.deepEqual(
    r.map((x) => [x.change.name, x.file, x.line]),
    [
      ['pbkdf2Sync', 'app.js', 31],
      ['sha512_block_data_order', 'app.js', 31],
    ],
  );
  assert.ok(r[0].growth > 90);
  const gh = toGithubAnnotations(r, 5);
  assert.match(
    gh,
    /^::warning file=app\.js,line=31,title=Node Flame::pbkdf2Sync \(node:internal\/crypto\/pbkdf2:62\): self share grew by [\d.]+ points, 0\.0%25 → [\d.]+%25 \(limit 5\)$/m,
  );
});

test('the faster run does not flag its unchanged start-up, though its share grew', () => {
  const changes = diffFunctions(syncRun, asyncRun);
  const compile = changes.find((c) => c.name === 'compileForInternalLoader')!;
  assert.ok(gateShares(compile).growth > 0.5, 'as a share of its own run, start-up grew a lot');
  assert.ok(gateShares(compile, comparableTotals(syncRun, asyncRun)).growth < 0.001, 'in ticks it did not');
  assert.deepEqual(findRegressions(changes, syncRun, asyncRun, 5, CWD), []);
});

test('annotation and Markdown text cannot break out of their syntax', () => {
  const b = new ProfileBuilder('v8log');
  const evil = b.frame({ name: 'a,b:c%d\n::error::pwned | `x` <b>', file: '/repo/we,ird:file.js', line: 7, column: 0, category: 'app' });
  const other = b.frame({ name: 'other', file: '/repo/o.js', line: 1, column: 0, category: 'app' });
  b.sample([other], 10);
  const before = b.build();
  const b2 = new ProfileBuilder('v8log');
  b2.frame({ name: 'a,b:c%d\n::error::pwned | `x` <b>', file: '/repo/we,ird:file.js', line: 7, column: 0, category: 'app' });
  b2.frame({ name: 'other', file: '/repo/o.js', line: 1, column: 0, category: 'app' });
  b2.sample([evil], 10);
  b2.sample([other], 1);
  const after = b2.build();
  const changes = diffFunctions(before, after);
  const r = findRegressions(changes, before, after, 5, CWD);
  const gh = toGithubAnnotations(r, 5);
  assert.equal(gh.split('\n').filter(Boolean).length, 1, gh);
  assert.match(gh, /^::warning file=we%2Cird%3Afile\.js,line=7,title=Node Flame::a,b:c%25d\\x0a::error::pwned/);
  const md = toMarkdown(changes, { before: 'a.log', after: 'b.log' }, comparableTotals(before, after), 5, 10, r);
  const row = md.split('\n').find((l) => l.includes('pwned'))!;
  assert.equal(row.split(/(?<!\\)\|/).length, 7, `one cell per column: ${row}`);
  assert.ok(!/<b>/.test(row) && row.includes('\\`x\\`'), row);
  assert.match(md, /^❌ 1 function\(s\) grew by more than 5 points of self share$/m);
});
