import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asCpuProfile, cpuprofileImporter, cpuProfileToModel, readJson } from '../../src/core/importers/cpuprofile';
import { readCpuProfileStream } from '../../src/core/importers/cpuprofileStream';
import { ProfileError, type Profile } from '../../src/core/model';
import { cpuProfile } from '../helpers/bundles';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';
import { seededRandom } from '../../src/core/seededRandom';

const file = tempFiles('nf-cpuprof-stream-', '.cpuprofile');

/** The JSON.parse path the importer used before it streamed: the oracle. */
async function viaJsonParse(path: string): Promise<Profile> {
  return cpuProfileToModel(asCpuProfile(await readJson(path), path), path);
}

async function viaStream(path: string, chunkSize?: number): Promise<Profile> {
  return cpuProfileToModel(asCpuProfile(await readCpuProfileStream(path, { chunkSize }), path), path);
}

function same(a: Profile, b: Profile, what: string): void {
  assert.deepEqual(a.frames, b.frames, `${what}: frames`);
  assert.deepEqual(a.tree, b.tree, `${what}: tree`);
  assert.deepEqual(a.meta, b.meta, `${what}: meta`);
  assert.deepEqual(a.warnings, b.warnings, `${what}: warnings`);
  assert.deepEqual(a.lineHits, b.lineHits, `${what}: line hits`);
  assert.deepEqual(a.timeline?.nodes, b.timeline?.nodes, `${what}: timeline nodes`);
  assert.deepEqual(a.timeline?.times, b.timeline?.times, `${what}: timeline times`);
  assert.deepEqual(a, b, what);
}

test('checked-in and freshly recorded .cpuprofiles stream to the Profile JSON.parse gives, at any chunk size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-cpuprof-rec-'));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'prog.js');
  writeFileSync(
    script,
    `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
     const t = Date.now(); let s = 0; while (Date.now() - t < 300) s += fib(20);
     console.log(s > 0 ? 'ok' : 'no');`,
  );
  const recorded = cpuProfile(script, join(dir, 'prof'));
  const files = [
    recorded,
    join(fixtures, 'timeline', 'phases.cpuprofile'),
    join(fixtures, 'fuzz', 'seed.cpuprofile'),
    join(fixtures, 'process-tree-timeline', 'run', 'CPU.20261124.073453.901.0.001.cpuprofile'),
  ];
  for (const f of files) {
    const want = await viaJsonParse(f);
    assert.ok(want.timeline && want.timeline.nodes.length > 0, `${f} has samples`);
    same(await cpuprofileImporter.load(f, {}), want, f);
    same(await viaStream(f, 7), want, `${f} in 7-byte chunks`);
  }
  // V8's own one-line file cut at many more boundaries.
  const want = await viaJsonParse(recorded);
  for (const size of [1, 2, 3, 5, 13, 64]) same(await viaStream(recorded, size), want, `chunks of ${size}`);
});

test('whitespace, escapes, other key orders, \\" in URLs, the inspector wrapper and odd numbers read as JSON.parse reads them', async () => {
  const text = `\uFEFF{
    "timeDeltas" : [ 0 , 1000, 2.5e3,
      -5, 1e400, 12345678901234567890, 0.25 ],
    "endTime": 1.5e4, "extra": {"nested": [1, "]}\\"", {"a": [[]]}], "s": "} ]"},
    "n\\u006fdes": [
      { "callFrame": {"url": "", "functionName": "(root)", "scriptId": 0, "lineNumber": -1, "columnNumber": -1},
        "children": [2, 3], "id": 1 },
      {"id":2,"callFrame":{"functionName":"caf\\u00e9 \\"q\\" 日本","scriptId":"7","url":"file:///tmp/a\\"b/x y.js","lineNumber":3,"columnNumber":4},
       "hitCount": 2, "positionTicks": [{"line": 4, "ticks": 2}]},
      {"children":[],"callFrame":{"functionName":"(garbage collector)","url":""},"id":3}
    ],
    "samples": [2, 3, 2, 99, null, "2", 2],
    "startTime": 1000
  }\r\n\t`;
  const odd = file(text);
  const want = await viaJsonParse(odd);
  assert.equal(want.timeline?.nodes.length, 7);
  assert.ok(want.frames.some((f) => f.name === 'café "q" 日本' && f.file === '/tmp/a"b/x y.js'));
  for (const size of [1, 2, 3, 4, 7, 16, 1 << 20]) same(await viaStream(odd, size), want, `chunks of ${size}`);

  const wrapped = JSON.stringify({ profile: JSON.parse(text.replace('\uFEFF', '')) }, null, 1);
  const wrappedFile = file(wrapped);
  const wantWrapped = await viaJsonParse(wrappedFile);
  assert.equal(wantWrapped.timeline?.nodes.length, 7);
  for (const size of [3, 1 << 20]) same(await viaStream(wrappedFile, size), wantWrapped, `wrapped, chunks of ${size}`);
});

test('progress climbs to 1 by bytes, and an aborted read stops with the abort', async () => {
  const text = readFileSync(join(fixtures, 'fuzz', 'seed.cpuprofile'));
  const seen: number[] = [];
  await readCpuProfileStream(file(text), { chunkSize: 4096, onProgress: (x) => seen.push(x) });
  assert.ok(seen.length >= Math.floor(text.length / 4096), `${seen.length} progress reports`);
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    seen,
  );
  assert.equal(seen.at(-1), 1);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(cpuprofileImporter.load(file(text), { signal: ac.signal }), (e) => (e as Error).name === 'AbortError');
  const ac2 = new AbortController();
  await assert.rejects(
    readCpuProfileStream(file(text), { chunkSize: 1024, signal: ac2.signal, onProgress: (x) => x > 0.3 && ac2.abort() }),
    (e) => (e as Error).name === 'AbortError',
  );
});

test('truncated or malformed input is a ProfileError at any chunk size, never a crash', async () => {
  const good = readFileSync(join(fixtures, 'timeline', 'phases.cpuprofile'), 'utf8');
  const bad = [
    good.slice(0, Math.floor(good.length / 2)),
    good.slice(0, good.indexOf('"samples"') + 15),
    good.slice(0, -1),
    good + ' x',
    good + '}',
    '{"nodes": [',
    '{"nodes": [{"id": 1, "callFrame": {}},',
    '{"nodes": [{"id": 1, "callFrame": {}}], "samples": [1, 2,]}',
    '{"nodes": [{"id": 1, "callFrame": {}}], "samples": [1 2]}',
    '{"nodes": [{"id": 1, "callFrame": {}}], "samples": [01]}',
    '{"nodes": [{"id": 1, "callFrame": {}}], "samples": [1, -]}',
    '{"nodes": [{"id": 1, "callFrame": {}}], "timeDeltas": [1.2.3]}',
    '{"nodes": [{"id": 1, callFrame: {}}]}',
    '{"nodes" [{"id": 1, "callFrame": {}}]}',
    '{"nodes": [{"id": 1, "callFrame": {}}] "samples": []}',
    '{"nodes": [{"id": 1, "callFrame": {}}], "startTime": }',
    '{"nodes": [{"id": 1, "callFrame": {}}], "startTime": 1',
    '{"nodes": [{"id": 1, "callFrame": {}}], "x": "unterminated}',
    '{nodes: []}',
    '',
  ];
  for (const text of bad)
    for (const chunkSize of [1, 5, 1 << 20])
      await assert.rejects(
        viaStream(file(text), chunkSize),
        (e) => e instanceof ProfileError && /truncated or corrupt/.test(e.message) && !e.message.includes('\n'),
        `${JSON.stringify(text.slice(-60))} in chunks of ${chunkSize}`,
      );
  // Well-formed JSON that is no profile keeps the importer's own words.
  await assert.rejects(cpuprofileImporter.load(file('[1, 2, {"nodes": []}]'), {}), /no "nodes"/);
  await assert.rejects(cpuprofileImporter.load(file('{"nodes": {"id": 1}}'), {}), /no "nodes"/);
  await assert.rejects(cpuprofileImporter.load(join(tmpdir(), 'nf-no-such-file.cpuprofile'), {}), /cannot read: ENOENT/);
});

test('mutated profiles: where JSON.parse reads one the stream gives the same Profile, and nothing else crashes', async () => {
  const seed = readFileSync(join(fixtures, 'fuzz', 'seed.cpuprofile'));
  // mulberry32: the old LCG here lost precision past 2^53 and settled into a cycle where every chunk was one byte.
  const r = seededRandom(7);
  const rand = (n: number) => Math.floor(r() * n);
  const sizes = new Set<number>();
  const bytes = Buffer.from('{}[]",:0123456789.-eE \\nu\u00e9');
  // Chunks of up to 4 kB hold many whole nodes: the nodes are parsed a chunk's worth at a time, cut without a scan.
  const big = (k: number) => (k % 2 ? 1 + rand(64) : 512 + rand(4096));
  let agreed = 0;
  for (let k = 0; k < 300; k++) {
    const b = Buffer.from(seed);
    for (let m = 1 + rand(3); m > 0; m--) b[rand(b.length)] = bytes[rand(bytes.length)];
    const f = file(k % 10 === 0 ? b.subarray(0, rand(b.length)) : b);
    const want = await viaJsonParse(f).catch((e: unknown) => e);
    const size = big(k);
    sizes.add(size);
    const got = await viaStream(f, size).catch((e: unknown) => e);
    if (got instanceof Error) assert.ok(got instanceof ProfileError, `case ${k}: ${got.stack}`);
    if (!(want instanceof Error)) {
      same(got as Profile, want as Profile, `case ${k}`);
      agreed++;
    }
  }
  assert.ok(agreed > 30, `${agreed} mutated files both read`);
  assert.ok(sizes.size > 80, `chunk sizes tried: ${[...sizes].join(' ')}`);
});

test('the steps the reader notes for a packed timeline are the ones packTimeline finds itself', async () => {
  const { packTimeline } = await import('../../src/core/model/packedTimeline');
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1, scriptId: '0' }, children: [2] },
    { id: 2, callFrame: { functionName: 'work', url: 'file:///a.js', lineNumber: 1, columnNumber: 1, scriptId: '1' } },
  ];
  const cases: [string, number[]][] = [
    ['short steps', [1234, 1000, 0, 65535, 7, 999]],
    ['a step past 65,535 µs', [5, 1000, 70000, 3]],
    ['a fraction', [5, 1000.5, 3, 4]],
  ];
  for (const [what, timeDeltas] of cases) {
    const samples = timeDeltas.map((_, i) => (i % 2 ? 2 : 1));
    const path = file(JSON.stringify({ nodes, startTime: 0, endTime: 80000, samples, timeDeltas }));
    const p = await cpuprofileImporter.load(path, { packing: true });
    const tl = p.timeline!;
    const noted = packTimeline(tl, p.tree.count);
    const found = packTimeline({ ...tl, times: new Float64Array(tl.times) }, p.tree.count);
    assert.deepEqual(noted, found, what);
  }
});
