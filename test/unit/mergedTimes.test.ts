// A run's merged timeline keeps its times packed (mergedTimes.ts: four bytes of µs a sample past a block's base, and
// each process's offset by node) and reads them back as the very numbers an unpacked merge makes; a block whose
// samples do not fit four bytes of µs holds those aside, and a run of too many of them keeps the times themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles, type MergePart, type Profile } from '../../src/core/model';
import { packTimeline } from '../../src/core/model/packedTimeline';
import { lastTime, MAX_PACKED_US, PACKED_BLOCK_BITS, sampleCount, unpackSome, WIDE_US } from '../../src/core/model/mergedTimes';
import { eachThreadsSamples } from '../../src/core/model/processes';
import { lastSampleTime } from '../../src/core/model/timeline';
import { packProfile, unpackProfile } from '../../src/core/model/transfer';
import { treeRunParts } from '../helpers/runTimeline';

/** `count` copies of a real profile, each with whole-µs times `timeOf(i, j)` and started at `startOf(j)`. */
async function copies(count: number, timeOf: (i: number, j: number) => number, startOf: (j: number) => number, n?: number) {
  const base = (await treeRunParts())[0].profile;
  const own = base.timeline!.nodes;
  const len = n ?? own.length;
  const nodes = Uint32Array.from({ length: len }, (_, i) => own[i % own.length]);
  const plain: MergePart[] = Array.from({ length: count }, (_, j) => {
    const times = new Float64Array(len);
    for (let i = 0; i < len; i++) times[i] = Math.round(timeOf(i, j) * 1000) / 1000;
    return { profile: { ...base, timeline: { nodes, times } }, thread: `p${j}`, startMs: startOf(j) };
  });
  const packed = plain.map((c) => ({
    ...c,
    profile: { ...c.profile, timeline: undefined },
    packed: packTimeline(c.profile.timeline!, c.profile.tree.count),
  }));
  return { base, plain, packed };
}

/** Equal to the bit, -0 and NaN included. */
function sameTimes(got: Float64Array, want: Float64Array): void {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) assert.fail(`time at ${i}: ${got[i]} vs ${want[i]}`);
}

test('packed merged times read back to the bit, processes hours apart and shifted by fractions of a ms', async () => {
  // 1.001 ms apart with a 70 ms gap now and then; the processes start 0.2501 ms + 2 hours apart (past four bytes of µs).
  const { base, plain, packed } = await copies(
    4,
    (i, j) => i * 1.001 + 70 * Math.floor(i / 50) + j * 0.013,
    (j) => 1000.123 + j * (0.2501 + 7_200_000),
  );
  const want = mergeProfiles(plain, { ...base.meta });
  assert.equal(want.timeline!.packed, undefined, 'parts not packed: the merged times as they are');
  const got = mergeProfiles(packed, { ...base.meta });
  const tl = got.timeline!;
  const p = tl.packed;
  assert.ok(p, 'the merged times are packed');
  assert.ok(p.us instanceof Uint32Array && p.us.length === tl.nodes.length, 'four bytes a sample');
  assert.equal(p.blockUs.length, (tl.nodes.length >>> PACKED_BLOCK_BITS) + 1);
  assert.equal(sampleCount(tl), want.timeline!.times.length);
  assert.equal(lastTime(tl), want.timeline!.times.at(-1));
  assert.equal(lastSampleTime(got), lastSampleTime(want));
  // Findings' gaps read the packed times in place.
  const groups = got.threads.map((t) => [t.name]);
  assert.deepEqual(
    eachThreadsSamples(got, groups, 50).map((g) => g.gaps),
    eachThreadsSamples(want, groups, 50).map((g) => g.gaps),
  );
  assert.ok(tl.packed, 'counting, the last time and the gaps did not unpack the times');
  // Sent to another thread (the import worker's answer), packed as it is, and read there as here.
  const { packed: sent, transfer } = packProfile(got);
  const there = unpackProfile(structuredClone(sent, { transfer }));
  assert.ok(there.timeline!.packed && sent.timeline!.times === undefined, 'sent packed');
  assert.ok(tl.packed, 'sending did not unpack the times');
  sameTimes(there.timeline!.times, want.timeline!.times);
  const copy = { ...tl };
  assert.equal(copy.packed, undefined, 'a copy of the timeline has plain times');
  sameTimes(copy.times, want.timeline!.times);
  assert.equal(tl.packed, undefined, 'once read, the times are unpacked');
  sameTimes(tl.times, want.timeline!.times);
  assert.deepEqual(got, want);
});

test('samples over 71 minutes apart are held aside, and read back to the bit', async () => {
  // A sample an hour apart (each process's own steps fit four bytes of µs): in one block of samples, those from two
  // hours on are past four bytes of µs from its base.
  const { base, plain, packed } = await copies(
    2,
    (i, j) => i * 3_600_000 + j,
    (j) => 5 + j,
    40,
  );
  assert.ok(packed.every((p) => p.packed.steps instanceof Uint32Array));
  assert.ok(7_200_000_000 > MAX_PACKED_US);
  const got = mergeProfiles(packed, { ...base.meta });
  const p = got.timeline!.packed;
  assert.ok(p, 'packed');
  assert.equal(p.wide.size, 76, 'all but the first hour of each process held aside');
  assert.equal(p.us.filter((d) => d === WIDE_US).length, 76);
  const want = mergeProfiles(plain, { ...base.meta });
  assert.equal(lastTime(got.timeline!), want.timeline!.times.at(-1));
  const groups = got.threads.map((t) => [t.name]);
  assert.deepEqual(
    eachThreadsSamples(got, groups, 50).map((g) => g.gaps),
    eachThreadsSamples(want, groups, 50).map((g) => g.gaps),
  );
  sameTimes(got.timeline!.times, want.timeline!.times);
  assert.deepEqual(got, want);
});

test('a run of mostly gaps over 71 minutes keeps its times as they are, the same', async () => {
  const n = 70_000;
  const { base, plain, packed } = await copies(
    1,
    (i) => i * 3_600_000,
    () => 0,
    n,
  );
  const two = packed.concat(packed.map((p) => ({ ...p, thread: 'q', startMs: 0.5 })));
  assert.ok(packed[0].packed.steps instanceof Uint32Array);
  const got = mergeProfiles(two, { ...base.meta });
  assert.equal(got.timeline!.packed, undefined, 'the times themselves');
  const want = mergeProfiles(plain.concat(plain.map((p) => ({ ...p, thread: 'q', startMs: 0.5 }))), { ...base.meta });
  sameTimes(got.timeline!.times, want.timeline!.times);
  assert.deepEqual(got, want);
});

test('one process alone on the run axis (its level folded away) has plain times', async () => {
  const { base, plain, packed } = await copies(
    1,
    (i) => i * 1.5,
    () => 42.5,
  );
  const got: Profile = mergeProfiles(packed, { ...base.meta }, { originMs: 40 });
  assert.equal(got.timeline!.packed, undefined);
  assert.deepEqual(got, mergeProfiles(plain, { ...base.meta }, { originMs: 40 }));
});

test('packed times unpacked ahead a slice at a time (the editor, between messages) are the times read at once', async () => {
  const { base, packed } = await copies(
    3,
    (i, j) => i * 1.001 + 70 * Math.floor(i / 50) + j * 0.013,
    (j) => 1000.123 + j * (0.2501 + 7_200_000),
  );
  const once = mergeProfiles(packed, { ...base.meta }).timeline!;
  const ahead = mergeProfiles(packed, { ...base.meta }).timeline!;
  assert.ok(once.packed && ahead.packed, 'both packed');
  let slices = 1;
  while (!unpackSome(ahead, 1000)) slices++;
  assert.equal(slices, Math.ceil(ahead.nodes.length / 1000));
  assert.equal(ahead.packed, undefined, 'unpacked: the times are the timeline own now');
  sameTimes(ahead.times, once.times);
  assert.equal(unpackSome(ahead, 1000), true);
  assert.equal(unpackSome({ nodes: new Uint32Array(2), times: new Float64Array(2) }, 1), true, 'a plain timeline has nothing to unpack');
});
