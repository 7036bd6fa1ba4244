import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Profile as PprofProfile, StringTable } from 'pprof-format';
import { loadProfile, sniffFormat } from '../../src/core/importers';
import { looksLikePprof } from '../../src/core/importers/pprof';
import { exportProfileData } from '../../src/core/exporters';
import { toJsonReport } from '../../src/core/exporters/json';
import { ProfileBuilder, weightUnitOf } from '../../src/core/model';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';

const write = tempFiles('nf-pprof-unit-', '.pb.gz');

/**
 * A Go-style CPU profile encoded by pprof-format (the codec @datadog/pprof writes with): two threads as
 * labels, an inlined frame, a span label, samples/count and cpu/nanoseconds.
 */
function goStyleProfile(): Uint8Array {
  const st = new StringTable();
  const s = (x: string) => st.dedup(x);
  const fn = (id: number, name: string, file: string, startLine: number) => ({
    id,
    name: s(name),
    systemName: s(name),
    filename: s(file),
    startLine,
  });
  const p = new PprofProfile({
    sampleType: [
      { type: s('samples'), unit: s('count') },
      { type: s('cpu'), unit: s('nanoseconds') },
    ],
    function: [
      fn(1, 'main', '/srv/app/main.js', 1),
      fn(2, 'handle', '/srv/app/routes.js', 10),
      fn(3, 'parse', '/srv/app/parse.js', 3),
      fn(4, 'inlinedHelper', '/srv/app/parse.js', 20),
    ],
    // location 3 is parse with inlinedHelper inlined into it: the last line is the caller.
    location: [
      { id: 1, line: [{ functionId: 1, line: 5 }] },
      { id: 2, line: [{ functionId: 2, line: 12 }] },
      {
        id: 3,
        line: [
          { functionId: 4, line: 22 },
          { functionId: 3, line: 7 },
        ],
      },
    ],
    sample: [
      {
        locationId: [3, 2, 1],
        value: [30, 30_000_000],
        label: [
          { key: s('thread name'), str: s('Main') },
          { key: s('span id'), str: s('a1') },
        ],
      },
      {
        locationId: [2, 1],
        value: [10, 10_000_000],
        label: [
          { key: s('thread name'), str: s('Main') },
          { key: s('span id'), str: s('b2') },
        ],
      },
      { locationId: [3, 2, 1], value: [5, 5_000_000], label: [{ key: s('thread name'), str: s('Worker') }] },
      { locationId: [1], value: [0, 0], label: [] },
    ],
    stringTable: st,
    timeNanos: 1_795_000_000_000_000_000n,
    durationNanos: 2_000_000_000,
    periodType: { type: s('cpu'), unit: s('nanoseconds') },
    period: 1_000_000,
  });
  return p.encode();
}

test('sniffing: pprof gzipped or not is pprof; the other formats and text are not', async () => {
  const raw = goStyleProfile();
  assert.equal((await sniffFormat(write(Buffer.from(raw)))).format, 'pprof');
  assert.equal((await sniffFormat(write(gzipSync(raw)))).format, 'pprof');
  for (const f of readdirSync(join(fixtures, 'fuzz')).filter((n) => n.startsWith('seed'))) {
    assert.notEqual((await sniffFormat(join(fixtures, 'fuzz', f))).format, 'pprof', f);
  }
  // gzip of something else, and bytes that break the message shape in the first fields.
  await assert.rejects(sniffFormat(write(gzipSync('main;handle 3\n'))), /not a profile Node Flame reads/);
  assert.equal(looksLikePprof(Buffer.from('v8-version,11,3\n'), true), false);
  assert.equal(looksLikePprof(Buffer.from('{"nodes":[]}'), true), false);
  assert.equal(looksLikePprof(raw.subarray(0, 40), false), true, 'a prefix of a big file still reads as one');
  // The string table must start with "": a field 6 of length 3 first is not pprof.
  assert.equal(looksLikePprof(Buffer.from([0x32, 0x03, 0x61, 0x62, 0x63]), true), false);
});

test('import: cpu type by default (the last), ms units, inlined frames caller first, threads from labels, labels listed', async () => {
  const p = await loadProfile(write(gzipSync(goStyleProfile())), { sourceMaps: false });
  assert.equal(p.format, 'pprof');
  assert.deepEqual([p.meta.unit, p.meta.sampleType, p.meta.intervalMs, p.meta.durationMs], ['ms', 'cpu', 1, 2000]);
  assert.equal(p.meta.startTime, 1_795_000_000_000);
  assert.equal(p.tree.weight, 45, '45 ms; the zero sample adds nothing');
  assert.deepEqual(
    p.threads.map((t) => [t.name, t.samples]),
    [
      ['Main', 40],
      ['Worker', 5],
    ],
  );
  const stacks: string[] = [];
  p.tree.forEachStack((stack, self) => stacks.push(`${stack.map((f) => p.frames[f].name).join(';')} ${self}`));
  assert.deepEqual(stacks.sort(), [
    'thread Main;main;handle 10',
    'thread Main;main;handle;parse;inlinedHelper 30',
    'thread Worker;main;handle;parse;inlinedHelper 5',
  ]);
  const parse = p.frames.find((f) => f.name === 'parse')!;
  assert.deepEqual([parse.file, parse.line, parse.category], ['/srv/app/parse.js', 3, 'app']);
  assert.deepEqual(p.lineHits.get('/srv/app/parse.js')?.get(22), { self: 35, total: 35 });
  assert.deepEqual(p.lineHits.get('/srv/app/parse.js')?.get(7), { self: 0, total: 35 });
  assert.deepEqual(
    p.meta.labels?.map((l) => [l.key, l.distinct, l.values.map((v) => v.value)]),
    [
      ['thread name', 2, ['Main', 'Worker']],
      ['span id', 2, ['a1', 'b2']],
    ],
  );
  const json = toJsonReport(p);
  assert.equal(json.unit, 'ms');
  assert.deepEqual(json.sampleTypes, [
    { type: 'samples', unit: 'count' },
    { type: 'cpu', unit: 'nanoseconds' },
  ]);
});

test('import: --sample-type and --label pick the weights and the samples', async () => {
  const file = write(gzipSync(goStyleProfile()));
  const counts = await loadProfile(file, { sampleType: 'samples', sourceMaps: false });
  assert.deepEqual([counts.meta.unit, counts.tree.weight], ['samples', 45]);
  const span = await loadProfile(file, { labels: { 'span id': 'a1' }, sourceMaps: false });
  assert.equal(span.tree.weight, 30);
  await assert.rejects(
    loadProfile(file, { sampleType: 'alloc_space' }),
    /no sample type "alloc_space" in this profile \(it has: samples, cpu\)/,
  );
});

test('import: path mapping moves server paths to local ones before anything else reads them', async () => {
  const file = write(gzipSync(goStyleProfile()));
  const p = await loadProfile(file, { sourceMaps: false, pathMapping: { rules: { '/srv/app': '/home/me/app' } } });
  assert.equal(p.frames.find((f) => f.name === 'parse')!.file, '/home/me/app/parse.js');
  assert.ok(p.lineHits.has('/home/me/app/parse.js'));
});

test('units: time to ms, bytes, objects, counts', () => {
  assert.deepEqual(weightUnitOf({ type: 'cpu', unit: 'nanoseconds' }), { unit: 'ms', scale: 1e-6, known: true });
  assert.deepEqual(weightUnitOf({ type: 'alloc_space', unit: 'bytes' }), { unit: 'bytes', scale: 1, known: true });
  assert.deepEqual(weightUnitOf({ type: 'inuse_objects', unit: 'count' }), { unit: 'objects', scale: 1, known: true });
  assert.deepEqual(weightUnitOf({ type: 'samples', unit: 'count' }), { unit: 'samples', scale: 1, known: true });
  assert.equal(weightUnitOf({ type: 'x', unit: 'furlongs' }).known, false);
});

test('export: pprof of a tick profile carries samples and cpu ns, threads as labels, and reads back the same', async () => {
  const b = new ProfileBuilder('v8log', { durationMs: 1500, intervalMs: 1, startTime: 1_795_000_000_123 });
  const main = b.frame({ name: 'main', file: '/app/main.js', line: 3, column: 1, category: 'app' });
  const hash = b.frame({ name: 'hash', file: '/app/main.js', line: 10, column: 5, category: 'app', tier: 'turbofan' });
  const hashI = b.frame({ name: 'hash', file: '/app/main.js', line: 10, column: 5, category: 'app', tier: 'interpreted' });
  const sha = b.frame({
    name: 'sha512_block_data_order',
    file: '',
    line: 0,
    column: 0,
    category: 'shared-lib',
    lib: '/usr/lib/libcrypto.so.3',
  });
  const gc = b.frame({ name: '(garbage collector)', file: '', line: 0, column: 0, category: 'gc' });
  b.sample([main, hash, sha], 50, 0, 'main');
  b.sample([main, hashI], 10, 0, 'main');
  b.sample([gc], 5, 0, 'worker');
  const bytes = exportProfileData(b.build(), 'pprof');
  assert.ok(bytes instanceof Uint8Array);
  const p = PprofProfile.decode(gunzipSync(bytes));
  const s = p.stringTable.strings;
  assert.deepEqual(
    p.sampleType.map((t) => `${s[Number(t.type)]}/${s[Number(t.unit)]}`),
    ['samples/count', 'cpu/nanoseconds'],
  );
  assert.equal(p.function.length, 4, 'two tiers of hash are one function');
  assert.equal(Number(p.durationNanos), 1_500_000_000);
  assert.equal(p.timeNanos, 1_795_000_000_123_000_000n);
  assert.equal(s[Number(p.mapping[0].filename)], '/usr/lib/libcrypto.so.3');

  const back = await loadProfile(write(Buffer.from(bytes)), { sourceMaps: false });
  assert.deepEqual([back.meta.unit, back.tree.weight], ['ms', 65]);
  assert.deepEqual(back.threads.map((t) => [t.name, t.samples]).sort(), [
    ['main', 60],
    ['worker', 5],
  ]);
  assert.equal(back.frames.find((f) => f.name === '(garbage collector)')!.category, 'gc');
  const counts = await loadProfile(write(Buffer.from(bytes)), { sampleType: 'samples', sourceMaps: false });
  assert.equal(counts.tree.weight, 65);
});

test('export: a pprof-born byte profile goes back out in bytes under its own sample type', async () => {
  const st = new StringTable();
  const s = (x: string) => st.dedup(x);
  const raw = new PprofProfile({
    sampleType: [{ type: s('alloc_space'), unit: s('bytes') }],
    function: [{ id: 1, name: s('alloc'), filename: s('/a.js'), startLine: 2 }],
    location: [{ id: 1, line: [{ functionId: 1, line: 2 }] }],
    sample: [{ locationId: [1], value: [4096] }],
    stringTable: st,
  }).encode();
  const p = await loadProfile(write(Buffer.from(raw)), { sourceMaps: false });
  const out = PprofProfile.decode(gunzipSync(exportProfileData(p, 'pprof') as Uint8Array));
  const t = out.stringTable.strings;
  assert.deepEqual(
    out.sampleType.map((v) => `${t[Number(v.type)]}/${t[Number(v.unit)]}`),
    ['alloc_space/bytes'],
  );
  assert.equal(Number(out.sample[0].value[0]), 4096);
});

test('a damaged pprof gives one line, not a stack', async () => {
  const gz = gzipSync(goStyleProfile());
  await assert.rejects(
    loadProfile(write(gz.subarray(0, gz.length - 12))),
    (e: Error) => e.name === 'ProfileError' && /gzip stream is damaged or cut short/.test(e.message),
  );
  const raw = Buffer.from(goStyleProfile());
  await assert.rejects(
    loadProfile(write(raw.subarray(0, raw.length - 3))),
    (e: Error) => e.name === 'ProfileError' && !e.message.includes('\n'),
  );
});
