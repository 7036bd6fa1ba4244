import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJson } from '../../src/core/importers/cpuprofile';
import { readJsonStream } from '../../src/core/importers/readJsonStream';
import { HEAP_NOTE_KEY, heapprofileImporter, heapProfileSchema, heapProfileToModel } from '../../src/core/importers/heapprofile';
import { ProfileError, type Profile } from '../../src/core/model';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-heapprof-stream-', '.heapprofile');
const corrupt = (why: string) => `not valid JSON, the .heapprofile is truncated or corrupt (${why})`;

/** The JSON.parse path the importer used before it streamed: the oracle. */
async function viaJsonParse(path: string): Promise<Profile> {
  return heapProfileToModel(await readJson(path, corrupt), path);
}

async function viaStream(path: string, chunkSize?: number): Promise<Profile> {
  return heapProfileToModel(await readJsonStream(path, heapProfileSchema, corrupt, { chunkSize }), path);
}

/** A real `node --heap-prof` file of the heap fixture. */
function recorded(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nf-heapprof-stream-run-'));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    process.execPath,
    ['--heap-prof', `--heap-prof-dir=${dir}`, '--heap-prof-interval=32768', join(fixtures, 'heap', 'keep-and-garbage.js'), '20'],
    { stdio: 'ignore' },
  );
  const name = readdirSync(dir).find((n) => n.endsWith('.heapprofile'));
  assert.ok(name, 'node --heap-prof wrote no .heapprofile');
  return join(dir, name);
}

test('a node --heap-prof file streams to the Profile JSON.parse gives, at chunk sizes from 1 byte to 1 MiB', async () => {
  const real = recorded();
  const text = readFileSync(real, 'utf8');
  const want = await viaJsonParse(real);
  assert.ok(want.tree.count > 10 && want.frames.some((f) => f.name === 'keepRows'), 'the recording has the fixture in it');
  assert.ok(JSON.parse(text).samples.length > 0, 'the samples the reader steps over are there');
  assert.deepEqual(await heapprofileImporter.load(real, {}), want);
  for (const size of [1, 2, 3, 7, 64, 4096, 1 << 20]) assert.deepEqual(await viaStream(real, size), want, `chunks of ${size}`);

  // The heap mode's note, the inspector's `{ profile }` wrapper, pretty-printed, with a BOM.
  const p = JSON.parse(text);
  p[HEAP_NOTE_KEY] = { samples: 'live', samplingInterval: 32768, startTime: 1.7e12, durationMs: 321 };
  for (const variant of ['\uFEFF' + JSON.stringify(p, null, 2), JSON.stringify({ profile: p })]) {
    const f = file(variant);
    const w = await viaJsonParse(f);
    assert.equal(w.meta.durationMs, 321);
    for (const size of [1, 5, 1 << 20]) assert.deepEqual(await viaStream(f, size), w, `variant, chunks of ${size}`);
  }
});

test('odd but valid heap profiles: key orders, escapes, repeated keys, odd children and a 20 000-deep chain', async () => {
  const texts = [
    `{"samples": [{"size": 8, "nodeId": 2, "ordinal": 1}], "head": {"children": [
       {"children": [], "selfSize": 64, "id": 2, "callFrame": {"functionName": "caf\\u00e9 \\"q\\"", "url": "file:///a\\"b/x y.js", "lineNumber": 3, "columnNumber": 1, "scriptId": "9"}},
       7, null, "x", [1],
       {"callFrame": {"functionName": "g", "url": "/app/g.js", "lineNumber": 0}, "selfSize": 1e3, "selfSize": 32, "children": [
         {"callFrame": {"functionName": "h", "url": "/app/h.js", "lineNumber": 5}, "selfSize": 16}
       ], "extra": {"children": [{"deep": "]}"}]}}
     ], "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "selfSize": 0, "id": 1}}`,
    `{"head": {"callFrame": {"functionName": "(root)"}, "children": [], "selfSize": 0}, "head": {"callFrame": {"functionName": "(root)"},
       "children": [{"callFrame": {"functionName": "only", "url": "/o.js", "lineNumber": 1}, "selfSize": 5e300}]}}`,
  ];
  // Written as text: JSON.stringify itself recurses too deep for it.
  const open = Array.from(
    { length: 20_000 },
    (_, i) =>
      `{"callFrame": {"functionName": "f${i % 50}", "url": "/app/m${i % 7}.js", "lineNumber": ${i % 90}}, "selfSize": ${i}, "children": [`,
  );
  texts.push(`{"head": {"callFrame": {"functionName": "(root)"}, "children": [${open.join('')}${']}'.repeat(20_000)}]}}`);
  for (const [k, text] of texts.entries()) {
    const f = file(text);
    const want = await viaJsonParse(f);
    assert.ok(want.tree.count > 1, `text ${k} has nodes`);
    // The 2 MB chain in 1-byte chunks would time the stream's per-chunk cost, not the reader.
    for (const size of k < 2 ? [1, 3, 16, 1 << 20] : [61, 1 << 20])
      assert.deepEqual(await viaStream(f, size), want, `text ${k}, chunks of ${size}`);
  }
});

test('truncated or malformed heap profiles are a ProfileError at any chunk size, never a crash', async () => {
  const good = readFileSync(recorded(), 'utf8');
  const bad = [
    good.slice(0, Math.floor(good.length / 2)),
    good.slice(0, good.indexOf('"samples"') + 12),
    good.slice(0, -1),
    good + ' x',
    good + ']',
    '{"head": {"callFrame": {}, "children": [',
    '{"head": {"callFrame": {}, "children": [{"callFrame": {}},]}}',
    '{"head": {"callFrame": {}, "children": [{"callFrame": {}} {"callFrame": {}}]}}',
    '{"head": {"callFrame": {}, "selfSize": 01}}',
    '{"head": {"callFrame": {"url": "unterminated}}}',
    '{"head" {"callFrame": {}}}',
    '{head: {}}',
    '',
  ];
  for (const text of bad)
    for (const chunkSize of [1, 5, 1 << 20])
      await assert.rejects(
        viaStream(file(text), chunkSize),
        (e) => e instanceof ProfileError && /heapprofile is truncated or corrupt/.test(e.message) && !e.message.includes('\n'),
        `${JSON.stringify(text.slice(-60))} in chunks of ${chunkSize}`,
      );
  // Well-formed JSON that is no heap profile keeps the importer's own words.
  await assert.rejects(heapprofileImporter.load(file('{"head": 5, "samples": []}'), {}), /no "head" node/);
  await assert.rejects(heapprofileImporter.load(file('[{"head": {}}]'), {}), /no "head" node/);
});

test('progress climbs to 1 and an abort stops the heap profile read', async () => {
  const real = recorded();
  const seen: number[] = [];
  await heapprofileImporter.load(real, { onProgress: (x) => seen.push(x) });
  assert.equal(seen.at(-1), 1);
  const ac = new AbortController();
  await assert.rejects(
    readJsonStream(real, heapProfileSchema, corrupt, { chunkSize: 256, signal: ac.signal, onProgress: (x) => x > 0.3 && ac.abort() }),
    (e) => (e as Error).name === 'AbortError',
  );
});
