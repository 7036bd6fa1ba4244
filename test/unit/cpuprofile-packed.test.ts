import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asCpuProfile, cpuprofileImporter, cpuProfileToModel, readJson } from '../../src/core/importers/cpuprofile';
import { readCpuProfileStream } from '../../src/core/importers/cpuprofileStream';
import { sampleCount, sampleTime } from '../../src/core/model/mergedTimes';
import { timeGaps, timelineGaps } from '../../src/core/model/processes';
import type { Profile } from '../../src/core/model';
import { seededRandom } from '../../src/core/seededRandom';
import { tempFiles } from '../helpers/tempFiles';

// The streaming reader holds a .cpuprofile's times packed (whole µs past a base per block of samples) and the model
// reads them as `µs / 1000`: every time must be the very number the Float64 path (JSON.parse's) makes, to the bit.

const file = tempFiles('nf-cpuprof-packed-', '.cpuprofile');

function profileText(deltas: (number | string)[]): string {
  const samples = deltas.map((_, i) => 2 + (i % 3));
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', scriptId: '0', lineNumber: -1, columnNumber: -1 }, children: [2, 3, 4] },
    { id: 2, callFrame: { functionName: 'a', url: 'file:///x/a.js', scriptId: '1', lineNumber: 1, columnNumber: 1 } },
    { id: 3, callFrame: { functionName: 'b', url: 'file:///x/a.js', scriptId: '1', lineNumber: 9, columnNumber: 1 } },
    { id: 4, callFrame: { functionName: '(idle)', url: '', scriptId: '0', lineNumber: -1, columnNumber: -1 } },
  ];
  return `{"nodes":${JSON.stringify(nodes)},"startTime":5,"endTime":7,"samples":[${samples.join(',')}],"timeDeltas":[${deltas.join(',')}]}`;
}

const bytes = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The importer's profile (packed when it can be) against JSON.parse's, times to the bit; returns whether it was packed. */
async function sameAsFloat64(deltas: (number | string)[], what: string): Promise<boolean> {
  const path = file(profileText(deltas));
  const want = cpuProfileToModel(asCpuProfile(await readJson(path), path), path);
  let packed = false;
  for (const got of [
    await cpuprofileImporter.load(path, {}),
    cpuProfileToModel(asCpuProfile(await readCpuProfileStream(path, { chunkSize: 7, packTimes: true }), path), path),
  ]) {
    const tl = got.timeline!;
    packed = !!tl.packed;
    if (tl.packed) {
      // Read packed, then unpacked: the same numbers both ways.
      assert.equal(sampleCount(tl), deltas.length);
      const each = Float64Array.from({ length: sampleCount(tl) }, (_, i) => sampleTime(tl, i));
      assert.deepEqual(bytes(each), bytes(want.timeline!.times), `${what}: packed times`);
      assert.deepEqual(timelineGaps(tl, 1), timeGaps(want.timeline!.times, 1), `${what}: gaps read packed`);
    }
    assert.deepEqual(bytes(tl.times), bytes(want.timeline!.times), `${what}: times`);
    assert.equal(tl.packed, undefined, `${what}: unpacked once read`);
    same(got, want, what);
  }
  return packed;
}

function same(a: Profile, b: Profile, what: string): void {
  assert.deepEqual(a.tree, b.tree, `${what}: tree`);
  assert.deepEqual(a.meta, b.meta, `${what}: meta`);
  assert.deepEqual(a.warnings, b.warnings, `${what}: warnings`);
  assert.deepEqual(a.timeline?.nodes, b.timeline?.nodes, `${what}: timeline nodes`);
}

test('packed .cpuprofile times read back as the Float64 ones, to the bit, across blocks, gaps and damage', async () => {
  const next = seededRandom(7);
  const n = 10_000;
  const steady = Array.from({ length: n }, () => Math.floor(next() * 2000));
  assert.ok(await sameAsFloat64(steady, 'whole µs'), 'whole µs are packed');
  // Negative and absurd deltas add nothing, as ever: the sums stay whole.
  const damaged: (number | string)[] = steady.map((d, i) => (i % 997 === 5 ? -d : i % 1999 === 7 ? 1e13 : d));
  damaged[40] = '1.5e3';
  assert.ok(await sameAsFloat64(damaged, 'negative, absurd and exponent deltas'), 'damaged deltas are packed');
  // A step past 71 minutes (ten digits: the general path) and steps that add up past it within a block (the fast path).
  const gaps = steady.map((d, i) => (i === 300 ? 5e9 : i >= 5000 && i < 5006 ? 999_999_999 : d));
  assert.ok(await sameAsFloat64(gaps, 'gaps past a block base'), 'long gaps are packed');
  // A fraction, or sums past 2 ** 53, end packing: the times are the Float64 path's from there on.
  assert.ok(
    !(await sameAsFloat64(
      steady.map((d, i) => (i === 6000 ? 12.5 : d)),
      'a fraction',
    )),
    'a fraction is not packed',
  );
  const huge = steady.map((d, i) => (i ? 999_999_999_999 : d));
  assert.ok(!(await sameAsFloat64(huge, 'sums past 2 ** 53')), 'sums past 2 ** 53 are not packed');
  // Fewer deltas than samples: the Float64 path's times.
  const short = profileText(steady).replace(/"timeDeltas":\[[^\]]*\]/, `"timeDeltas":[${steady.slice(0, 100).join(',')}]`);
  const path = file(short);
  const want = cpuProfileToModel(asCpuProfile(await readJson(path), path), path);
  const got = await cpuprofileImporter.load(path, {});
  assert.equal(got.timeline!.packed, undefined);
  assert.deepEqual(bytes(got.timeline!.times), bytes(want.timeline!.times));
});
