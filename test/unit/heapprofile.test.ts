import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heapprofileImporter, heapProfileToModel } from '../../src/core/importers/heapprofile';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { loadProfile, sniffFormat } from '../../src/core/importers';
import { diffFunctions, formatWeight, functionStats, ProfileError } from '../../src/core/model';
import { changeRows } from '../../src/core/viewer/diffSession';
import { diffToJson, diffToText, sharedUnit } from '../../src/core/exporters/diff';
import { gunzipSync } from 'node:zlib';
import { Profile as PprofProfile } from 'pprof-format';
import { exportProfile } from '../../src/core/exporters';
import { toPprof } from '../../src/core/exporters/pprof';
import { findFindings } from '../../src/core/findings';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';

const fixture = join(fixtures, 'heap', 'keep-and-garbage.js');
const file = tempFiles('nf-heapprof-', '.heapprofile');

/** A real `node --heap-prof` file of the fixture: only what is still reachable when node writes it. */
const real = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-heapprof-run-'));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(process.execPath, ['--heap-prof', `--heap-prof-dir=${dir}`, '--heap-prof-interval=32768', fixture, '20'], {
    stdio: 'ignore',
  });
  const name = readdirSync(dir).find((n) => n.endsWith('.heapprofile'));
  assert.ok(name, 'node --heap-prof wrote no .heapprofile');
  return join(dir, name);
})();

test('a node --heap-prof file is sniffed as a heap profile, not a .cpuprofile', async () => {
  const head = readFileSync(real);
  assert.equal(heapprofileImporter.sniff(head, real), true);
  assert.equal(cpuprofileImporter.sniff(head, real), false);
  assert.equal((await sniffFormat(real)).format, 'heapprofile');
});

test('node --heap-prof: bytes per function at its file:line, the keeping function on top', async () => {
  const p = await loadProfile(real, { sourceMaps: false });
  assert.equal(p.format, 'heapprofile');
  assert.equal(p.meta.unit, 'bytes');
  assert.equal(p.meta.sampleType, 'space');
  assert.equal((await loadProfile(real, { sourceMaps: false, sampleType: 'space' })).tree.weight, p.tree.weight);
  await assert.rejects(
    loadProfile(real, { sourceMaps: false, sampleType: 'live' }),
    /no sample type "live" in this profile \(it has: space\)/,
  );
  const stats = functionStats(p.tree, p.frames.length)
    .filter((s) => s.self > 0)
    .sort((a, b) => b.self - a.self);
  const keep = stats.find((s) => p.frames[s.frame].name === 'keepRows');
  assert.ok(keep, 'keepRows missing');
  assert.equal(p.frames[stats[0].frame].name, 'keepRows');
  const f = p.frames[keep.frame];
  assert.equal(f.file, fixture);
  assert.equal(f.line, 7);
  // 20 000 rows of 64 elements: at least 8 bytes an element, sampled every 32 KiB, V8 scales back up.
  assert.ok(keep.self > 20000 * 64 * 8 * 0.7 && keep.self < 20000 * 64 * 8 * 3, `keepRows self ${keep.self}`);
  // Line heat lands on the function's first line, in bytes.
  assert.ok((p.lineHits.get(fixture)?.get(7)?.self ?? 0) >= keep.self);
  // The tree's total is the sum of every node's selfSize.
  const json = JSON.parse(readFileSync(real, 'utf8')) as { head: { selfSize: number; children: unknown[] } };
  let sum = 0;
  const walk = (n: { selfSize: number; children: unknown[] }) => {
    sum += n.selfSize;
    for (const c of n.children) walk(c as typeof n);
  };
  walk(json.head);
  assert.equal(p.tree.weight, sum);
});

test("the preload's note names the sample type and the run's span", () => {
  const text = readFileSync(real, 'utf8');
  const json = JSON.parse(text) as Record<string, unknown>;
  json.nodeFlame = { samples: 'allocated', samplingInterval: 32768, startTime: 1_700_000_000_000, durationMs: 1234 };
  const p = heapProfileToModel(json, 'x.heapprofile');
  assert.equal(p.meta.sampleType, 'allocated');
  assert.deepEqual(p.meta.sampleTypes, [{ type: 'allocated', unit: 'bytes' }]);
  assert.equal(p.meta.durationMs, 1234);
  assert.equal(p.meta.mode, 'heap');
  assert.equal(p.meta.intervalBytes, 32768, 'the summary says the interval in bytes');
  // The inspector's stopSampling answer ({ profile }) reads the same.
  assert.equal(heapProfileToModel({ profile: JSON.parse(text) }).tree.weight, heapProfileToModel(JSON.parse(text)).tree.weight);
});

test('damaged heap profiles: a clear error or the nodes that can be read', async () => {
  assert.throws(() => heapProfileToModel({ samples: [] }, 'x'), ProfileError);
  const p = heapProfileToModel({
    head: {
      id: 1,
      selfSize: 0,
      callFrame: { functionName: '(root)', url: '' },
      children: [
        {
          id: 2,
          selfSize: 100,
          callFrame: { functionName: 'a', url: 'file:///app/a.js', lineNumber: 4, columnNumber: 0 },
          children: [{ id: 3, selfSize: 'x', children: [] }],
        },
        { id: 4, selfSize: -5, callFrame: { functionName: 'b', url: '', lineNumber: -1 }, children: [] },
      ],
    },
  });
  assert.equal(p.tree.weight, 100);
  assert.equal(p.warnings.length, 1);
  assert.deepEqual(p.lineHits.get('/app/a.js')?.get(5), { self: 100, total: 100 });
  await assert.rejects(
    loadProfile(file('{"head": {"callFrame": {}, "selfSize": 1, "children": [], ')),
    (e: Error) => e instanceof ProfileError && /\.heapprofile is truncated or corrupt/.test(e.message),
  );
});

test('comparing two heap profiles says how many bytes a function grew by', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-heapprof-long-'));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(process.execPath, ['--heap-prof', `--heap-prof-dir=${dir}`, '--heap-prof-interval=32768', fixture, '60'], {
    stdio: 'ignore',
  });
  const long = join(dir, readdirSync(dir).find((n) => n.endsWith('.heapprofile'))!);
  const [before, after] = [await loadProfile(real, { sourceMaps: false }), await loadProfile(long, { sourceMaps: false })];
  const changes = diffFunctions(before, after);
  const keep = changes.find((c) => c.name === 'keepRows')!;
  // 20 rounds, then 60: about three times the bytes.
  assert.ok(keep.afterValue > 2 * keep.beforeValue, `${keep.beforeValue} → ${keep.afterValue}`);
  const rows = changeRows(changes, before.frames, 50, true);
  assert.equal(rows.find((r) => r.name === 'keepRows')?.growth, keep.afterValue - keep.beforeValue);
  assert.equal(changeRows(changes, before.frames)[0].growth, undefined);
  const json = diffToJson(changes, 50, sharedUnit(before, after));
  assert.equal(json.unit, 'bytes');
  assert.ok((json.changes.find((c) => c.name === 'keepRows')?.growth ?? 0) > 1e6);
  assert.match(diffToText(changes, 'a', 'b', 50, 'bytes'), /\+\d+(\.\d)? MB\s+keepRows/);
});

test('weights in words: bytes in kB/MB/GB, time in ms/s, counts whole', () => {
  assert.equal(formatWeight(12_400_000, 'bytes'), '12.4 MB');
  assert.equal(formatWeight(-33_200, 'bytes'), '-33.2 kB');
  assert.equal(formatWeight(512, 'bytes'), '512 B');
  assert.equal(formatWeight(2_500_000_000, 'bytes'), '2.5 GB');
  assert.equal(formatWeight(35.24, 'ms'), '35.2 ms');
  assert.equal(formatWeight(1234.5, 'samples'), '1,235');
  assert.equal(formatWeight(12_400_000, 'bytes', 'de'), '12,4 MB');
});

test('exports of a heap profile speak bytes: JSON unit, speedscope unit, SVG labels, pprof sample type', async () => {
  const p = await loadProfile(real, { sourceMaps: false });
  const json = JSON.parse(exportProfile(p, 'json')) as { unit: string };
  assert.equal(json.unit, 'bytes');
  const ss = JSON.parse(exportProfile(p, 'speedscope')) as { profiles: { unit: string }[] };
  assert.equal(ss.profiles[0].unit, 'bytes');
  assert.match(exportProfile(p, 'svg'), /keepRows \([^)]*keep-and-garbage\.js:7\) — \d+\.\d+% \(\d+(\.\d)? MB\)/);
  const pb = toPprof(p);
  const decoded = PprofProfile.decode(gunzipSync(pb));
  const s = decoded.stringTable.strings;
  assert.deepEqual(
    decoded.sampleType.map((t) => [s[Number(t.type)], s[Number(t.unit)]]),
    [['space', 'bytes']],
  );
});

test('findings, which speak of time, are not drawn from bytes', () => {
  const frame = (functionName: string, url: string, selfSize: number, children: unknown[] = []) => ({
    id: 0,
    selfSize,
    callFrame: { functionName, url, lineNumber: 1, columnNumber: 0 },
    children,
  });
  const heap = { head: frame('(root)', '', 0, [frame('main', 'file:///app/main.js', 100, [frame('readFileSync', 'node:fs', 900_000)])]) };
  const p = heapProfileToModel(heap);
  assert.deepEqual(findFindings(p), []);
  // The same tree counted in samples is a blocking call.
  const asSamples = heapProfileToModel(heap);
  asSamples.meta.unit = 'samples';
  assert.ok(findFindings(asSamples).some((f) => f.rule === 'blocking-sync'));
});
