import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportFormats, exportProfile } from '../../src/core/exporters';
import { toJsonReport } from '../../src/core/exporters/json';
import { ProfileBuilder, type Category } from '../../src/core/model';

function profile() {
  const b = new ProfileBuilder('v8log', { durationMs: 1234.5 });
  const fr = (name: string, category: Category, extra: object = {}) => b.frame({ name, file: '', line: 0, column: 0, category, ...extra });
  const main = fr('main', 'app', { file: '/app/main.js', line: 3, column: 1, tier: 'interpreted' });
  const hash = fr('hash', 'app', { file: '/app/main.js', line: 10, column: 5, tier: 'turbofan' });
  const pb = fr('node::crypto::PBKDF2Job::Run', 'native', { lib: '/usr/bin/node' });
  const sha = fr('sha512_block_data_order', 'shared-lib', { lib: '/usr/lib/libcrypto.so.3' });
  const gc = fr('(garbage collector)', 'gc');
  b.sample([main, hash, pb, sha], 50);
  b.sample([main, hash, pb], 30);
  b.sample([main, hash], 10);
  b.sample([gc], 5);
  b.sample([], 5); // unresolved: unaccounted
  return b.build();
}

test('registry knows text, json and folded and rejects the rest', () => {
  for (const f of ['text', 'json', 'folded']) assert.ok(exportFormats().includes(f), f);
  assert.throws(() => exportProfile(profile(), 'nope'), /unknown export format "nope"/);
});

test('json: exact shape, fractions of all samples, sorted by self, top N', () => {
  const j = toJsonReport(profile(), { top: 3 });
  assert.deepEqual(Object.keys(j), [
    'format',
    'samples',
    'durationMs',
    'attributed',
    'categories',
    'functions',
    'functionCount',
    'functionsSortedBy',
    'findings',
    'unit',
    'startTime',
    'endTime',
  ]);
  // Half the samples in libcrypto: the native-library finding, in the documented shape.
  assert.deepEqual(
    j.findings.map((f) => Object.keys(f)),
    j.findings.map(() => ['rule', 'severity', 'message', 'file', 'line', 'share']),
  );
  assert.ok(
    j.findings.some((f) => f.rule === 'native-library' && f.share === 0.5 && f.message.includes('libcrypto.so.3')),
    JSON.stringify(j.findings),
  );
  assert.equal(j.unit, 'samples');
  assert.equal(j.format, 'v8log');
  assert.equal(j.samples, 100);
  assert.equal(j.durationMs, 1234.5);
  assert.equal(j.attributed, 0.95);
  assert.deepEqual(
    Object.entries(j.categories).filter(([, v]) => v > 0),
    [
      ['app', 0.1],
      ['native', 0.3],
      ['gc', 0.05],
      ['shared-lib', 0.5],
      ['unaccounted', 0.05],
    ],
  );
  assert.equal(Object.keys(j.categories).length, 13, 'every category is always present');
  assert.deepEqual(j.functions, [
    {
      name: 'sha512_block_data_order',
      file: null,
      line: null,
      column: null,
      category: 'shared-lib',
      lib: '/usr/lib/libcrypto.so.3',
      self: 0.5,
      total: 0.5,
    },
    {
      name: 'node::crypto::PBKDF2Job::Run',
      file: null,
      line: null,
      column: null,
      category: 'native',
      lib: '/usr/bin/node',
      self: 0.3,
      total: 0.8,
    },
    { name: 'hash', file: '/app/main.js', line: 10, column: 5, category: 'app', self: 0.1, total: 0.9 },
  ]);
  // main is on every stack but runs no code of its own: past the cut, which functionCount says is there.
  assert.equal(j.functionCount, 5, 'three of five functions listed');
  const whole = toJsonReport(profile());
  assert.equal(whole.functions.length, 5, 'default top 50 keeps all five');
  assert.equal(whole.functionCount, 5);
  assert.equal(j.functionsSortedBy, 'self');
});

test('json --sort total: the same rows ordered and cut by total, so a caller whose time is all in its callees is kept', () => {
  const j = toJsonReport(profile(), { top: 2, sort: 'total' });
  assert.equal(j.functionsSortedBy, 'total');
  // main has self 0 (past the self cut of 3 above) and is on 90 of 100 samples; hash on the same 90, with self 10:
  // a tie on total goes to the heavier self.
  assert.deepEqual(
    j.functions.map((f) => [f.name, f.self, f.total]),
    [
      ['hash', 0.1, 0.9],
      ['main', 0, 0.9],
    ],
  );
  assert.equal(j.functionCount, 5);
  const all = toJsonReport(profile(), { sort: 'total' }).functions.map((f) => f.name);
  assert.deepEqual(all, ['hash', 'main', 'node::crypto::PBKDF2Job::Run', 'sha512_block_data_order', '(garbage collector)']);
});

test('text: tick-processor sections, summary shares and the heavy tree', () => {
  const t = exportProfile(profile(), 'text', { source: 'isolate.log' });
  const lines = t.split('\n');
  // The findings come first, then the tick processor's layout.
  assert.equal(lines[0], ' [Findings]:');
  assert.match(lines[1], /native-library .*\(50\.0%\)/);
  const head = lines.findIndex((l) => l.startsWith('Statistical profiling result'));
  assert.equal(lines[head - 1], '');
  assert.match(lines[head], /from isolate\.log, \(100 ticks, 5 unaccounted/);
  const at = (h: string) => lines.indexOf(` [${h}]:`);
  for (const h of ['Shared libraries', 'JavaScript', 'C++', 'Summary', 'Bottom up (heavy) profile']) assert.ok(at(h) > 0, h);
  assert.ok(
    at('Shared libraries') < at('JavaScript') &&
      at('JavaScript') < at('C++') &&
      at('C++') < at('Summary') &&
      at('Summary') < at('Bottom up (heavy) profile'),
  );
  const section = (h: string) => lines.slice(at(h) + 2, lines.indexOf('', at(h) + 1));
  assert.deepEqual(
    section('Shared libraries').map((l) => l.trim().split(/\s+/)),
    [['50', '50.0%', '/usr/lib/libcrypto.so.3']],
  );
  assert.deepEqual(
    section('JavaScript').map((l) => l.trim()),
    ['10  10.0%  20.0%  *hash /app/main.js:10:5'],
  );
  assert.deepEqual(
    section('C++').map((l) => l.trim()),
    ['30  30.0%  60.0%  node::crypto::PBKDF2Job::Run [/usr/bin/node]'],
  );
  const summary = Object.fromEntries(section('Summary').map((l) => [l.replace(/^.*%\s+/, ''), l.trim().split(/\s+/).slice(0, 3)]));
  assert.deepEqual(summary['JavaScript'], ['10', '10.0%', '20.0%']);
  assert.deepEqual(summary['C++'], ['30', '30.0%', '60.0%']);
  assert.deepEqual(summary['GC'], ['5', '5.0%', '10.0%']);
  assert.deepEqual(summary['Shared libraries'].slice(0, 2), ['50', '50.0%']);
  assert.deepEqual(summary['Unaccounted'].slice(0, 2), ['5', '5.0%']);
  const heavy = lines.slice(lines.indexOf('   ticks parent  name') + 1).filter(Boolean);
  assert.deepEqual(heavy.slice(0, 4), [
    '     50  50.0%  sha512_block_data_order',
    '     50 100.0%    node::crypto::PBKDF2Job::Run [/usr/bin/node]',
    '     50 100.0%      *hash /app/main.js:10:5',
    '     50 100.0%        ~main /app/main.js:3:1',
  ]);
  assert.equal(heavy[4], '     30  30.0%  node::crypto::PBKDF2Job::Run [/usr/bin/node]');
});

test('folded export through the registry', () => {
  const out = exportProfile(profile(), 'folded');
  assert.ok(out.includes('main /app/main.js:3:1;hash /app/main.js:10:5;node::crypto::PBKDF2Job::Run (/usr/bin/node) 30\n'));
  assert.ok(out.includes('[unknown] 5\n'));
});
