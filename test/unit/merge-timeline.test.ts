// mergeProfiles on the two .cpuprofiles of a real run (test/fixtures/process-tree-timeline, made by its make.sh):
// every process's samples stay on the Timeline, on the merged tree's nodes (same call stacks), shifted to
// one time axis by each process's start and in time order; the picker's choice of one process keeps exactly
// its samples on that axis; a range then keeps the right function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles, type MergePart, type Profile } from '../../src/core/model';
import { packTimeline } from '../../src/core/model/packedTimeline';
import { eachThreadsSamples, selectThreads, timeGaps } from '../../src/core/model/processes';
import { restrictToRange, threadActivities, timeOrdered, timeSpan } from '../../src/core/model/timeline';
import { timelineData } from '../../src/core/viewer/timelineAnswer';
import { stretch, treeRunParts } from '../helpers/runTimeline';

/** The run's parts, each placed by its profile's own start (the merge's input as the run clock leaves it). */
async function parts(): Promise<MergePart[]> {
  return (await treeRunParts()).map((p) => ({ ...p, startMs: p.profile.meta.startTime }));
}

/** Function names of a sample's stack, root-most first, thread levels left out. */
function stackOf(p: Profile, node: number): string {
  const names: string[] = [];
  for (let n = node; n > 0; n = p.tree.parent[n]) {
    const f = p.frames[p.tree.frame[n]];
    if (!(f.category === 'program' && f.name.startsWith('thread '))) names.push(f.name);
  }
  return names.reverse().join(';');
}

test('the merged run keeps each process sample on its call stack, shifted by its start, in time order', async () => {
  const ps = await parts();
  assert.equal(ps.length, 2);
  const [parent, child] = ps;
  assert.ok(child.startMs! > parent.startMs!, 'the forked child started later');
  const merged = mergeProfiles(ps, { ...parent.profile.meta });
  const tl = merged.timeline;
  assert.ok(tl, 'the merged run has a timeline');
  assert.equal(tl.times.length, parent.profile.timeline!.times.length + child.profile.timeline!.times.length);
  for (let i = 1; i < tl.times.length; i++) assert.ok(tl.times[i - 1] <= tl.times[i], `times in order at ${i}`);
  assert.equal(merged.meta.startTime, parent.startMs, "the axis starts at the earliest process's start");
  const offset = child.startMs! - parent.startMs!;
  // Each process's samples, in order, are the merged timeline's samples of its thread: same stacks, times + its offset.
  for (const [k, part] of ps.entries()) {
    const own = part.profile.timeline!;
    const level = merged.frames.findIndex((f) => f.name === `thread ${part.thread}`);
    const mine: number[] = [];
    for (let i = 0; i < tl.nodes.length; i++) {
      let n = tl.nodes[i];
      while (merged.tree.parent[n] > 0) n = merged.tree.parent[n];
      if (merged.tree.frame[n] === level) mine.push(i);
    }
    assert.equal(mine.length, own.times.length, part.thread);
    const shift = k === 0 ? 0 : offset;
    mine.forEach((i, j) => {
      assert.ok(Math.abs(tl.times[i] - (own.times[j] + shift)) < 1e-6, `${part.thread} sample ${j} time`);
      assert.equal(stackOf(merged, tl.nodes[i]), stackOf(part.profile, own.nodes[j]), `${part.thread} sample ${j} stack`);
    });
  }
  const p = stretch(merged, 'parentHot');
  const c = stretch(merged, 'childHot');
  assert.ok(p.n > 50 && c.n > 50, JSON.stringify({ p, c }));
  assert.ok(c.from > p.to, `childHot (${c.from}–${c.to} ms) after parentHot (${p.from}–${p.to} ms)`);
  assert.ok((merged.meta.durationMs ?? 0) >= c.to, 'the duration covers the last process');

  // The picker's choice of the child: only its samples, on the run's axis; a range in it keeps childHot.
  const alone = selectThreads(merged, [child.thread]);
  assert.equal(alone.timeline?.times.length, child.profile.timeline!.times.length);
  assert.equal(alone.timeline!.times[0], child.profile.timeline!.times[0] + offset);
  assert.equal(stretch(alone, 'parentHot').n, 0);
  assert.equal(stretch(alone, 'childHot').n, c.n);
  const ranged = restrictToRange(alone, c.from, c.to + 1);
  assert.equal(stretch(ranged, 'childHot').n, c.n);
  assert.equal(restrictToRange(merged, p.from, p.to + 1).timeline!.times.length > 0, true);
  assert.equal(stretch(restrictToRange(merged, p.from, p.to + 1), 'childHot').n, 0, 'the parent stretch has no childHot');
});

test('parts whose start is unknown each start at 0, and the merge says so', async () => {
  const ps = (await parts()).map((p) => ({ ...p, startMs: undefined }));
  const merged = mergeProfiles(ps, { ...ps[0].profile.meta });
  assert.ok(
    merged.warnings.some((w) => /start times are not known/.test(w)),
    merged.warnings.join('\n'),
  );
  assert.equal(merged.timeline!.times.length, ps[0].profile.timeline!.times.length + ps[1].profile.timeline!.times.length);
  assert.ok(stretch(merged, 'childHot').from < stretch(merged, 'parentHot').to, 'the child is no longer shifted');
});

test('a part without times (as a heap profile) adds none; an explicit origin shifts the whole run', async () => {
  const ps = await parts();
  const origin = ps[0].startMs! - 100;
  const merged = mergeProfiles(ps, { ...ps[0].profile.meta }, { originMs: origin });
  assert.equal(merged.meta.startTime, origin);
  assert.ok(Math.abs(merged.timeline!.times[0] - (ps[0].profile.timeline!.times[0] + 100)) < 1e-6);
  const untimed = { ...ps[1], profile: { ...ps[1].profile, timeline: undefined } };
  const half = mergeProfiles([ps[0], untimed], { ...ps[0].profile.meta });
  assert.equal(half.timeline!.times.length, ps[0].profile.timeline!.times.length);
  assert.ok(
    half.warnings.some((w) => w.startsWith(`${untimed.thread} recorded no sample times`)),
    half.warnings.join('\n'),
  );
  assert.equal(half.tree.weight, ps[0].profile.tree.weight + ps[1].profile.tree.weight);
});

test('the time-ordered chart of the merged run has a lane per process, each laid out as the process alone', async () => {
  const ps = await parts();
  const merged = mergeProfiles(ps, { ...ps[0].profile.meta });
  const end = timeSpan(merged)!.end;
  const { boxes, depth } = timeOrdered(merged, 0, end, 0);
  const of = (bs: typeof boxes, p: Profile, name: string, shift = 0) =>
    bs.filter((b) => p.frames[b.frame].name === name).map((b) => `${(b.start + shift).toFixed(3)}-${(b.end + shift).toFixed(3)}`);
  // Each process's hot function has the boxes it has when laid out alone (same sampling interval), at its offset:
  // in one sequence the parent's idle samples would end every childHot box at the next one.
  for (const [part, name] of [
    [ps[0], 'parentHot'],
    [ps[1], 'childHot'],
  ] as const) {
    const shift = part.startMs! - ps[0].startMs!;
    const own = { ...part.profile, meta: { ...part.profile.meta, intervalMs: merged.meta.intervalMs } };
    const alone = timeOrdered(own, -shift, end - shift, 0).boxes;
    const mine = of(boxes, merged, name);
    assert.ok(mine.length > 0, name);
    assert.deepEqual(mine, of(alone, own, name, shift), name);
  }
  const levelDepth = (pid: number) => boxes.find((b) => merged.frames[b.frame].name === `thread pid ${pid}`)?.depth;
  assert.equal(levelDepth(ps[0].pid!), 0, 'the parent (first to run) on top');
  const childLane = levelDepth(ps[1].pid!)!;
  assert.ok(childLane > 0 && childLane < depth, `the child's lane under it, at depth ${childLane} of ${depth}`);
  assert.ok(boxes.filter((b) => merged.frames[b.frame].name === 'childHot').every((b) => b.depth > childLane));
});

test('the activity graph of the merged run has a row per process, the parent first; one process picked has none', async () => {
  const ps = await parts();
  const merged = mergeProfiles(ps, { ...ps[0].profile.meta });
  const span = timeSpan(merged)!;
  const msg = timelineData(merged, { type: 'timeline', width: 400, overview: true });
  assert.deepEqual(
    msg.lanes?.map((l) => l.thread),
    ps.map((p) => p.thread),
  );
  const lanes = threadActivities(merged, span.start, span.end, 200);
  lanes.forEach((l, k) => assert.equal(l.activity.samples, ps[k].profile.timeline!.times.length, l.thread));
  // The child's row is empty until it started.
  const firstBusy = (k: number) =>
    Object.values(lanes[k].activity.series).reduce(
      (m, row) =>
        Math.min(
          m,
          row!.findIndex((v) => v > 0),
        ),
      Infinity,
    );
  const bucket = (ps[1].startMs! - ps[0].startMs!) / lanes[1].activity.bucketMs;
  assert.ok(firstBusy(1) >= Math.floor(bucket), `the child's first busy bucket ${firstBusy(1)}, its start at bucket ${bucket.toFixed(1)}`);
  assert.ok(firstBusy(0) < firstBusy(1));
  assert.deepEqual(timelineData(selectThreads(merged, [ps[1].thread]), { type: 'timeline', width: 400, overview: true }).lanes, []);
});

test("each process's samples over time from one pass over the timeline are those of the profile selectThreads gives it alone", async () => {
  const ps = await parts();
  const merged = mergeProfiles(ps, { ...ps[0].profile.meta });
  const groups = merged.threads.map((t) => [t.name]);
  assert.equal(groups.length, 2);
  // Gaps over 0.5 ms: the samples' own spacing, so most of them count (the findings' idle rule asks for 50 ms).
  const each = eachThreadsSamples(merged, groups, 0.5);
  for (const [k, g] of groups.entries()) {
    const alone = selectThreads(merged, g);
    assert.ok(alone.timeline && alone.timeline.nodes.length > 0, `${g[0]} has samples`);
    assert.deepEqual(each[k].profile, { ...alone, timeline: undefined }, g[0]);
    assert.deepEqual(each[k].nodes(), alone.timeline.nodes, `${g[0]}: its samples' nodes in its own tree, in order`);
    const gaps = timeGaps(alone.timeline.times, 0.5)!;
    assert.ok(gaps.gaps > 0 && gaps.span > gaps.gaps, JSON.stringify(gaps));
    assert.deepEqual(each[k].gaps, gaps, `${g[0]}: gaps`);
  }
  // Both threads in one group: the whole run, as selectThreads gives it.
  const [all] = eachThreadsSamples(merged, [groups.flat(), []], 0.5);
  assert.deepEqual(all.profile, selectThreads(merged, groups.flat()));
  assert.deepEqual(all.nodes(), merged.timeline!.nodes);
});

test('many parts with interleaved and tied times merge in time order, ties to the earlier part, as a stable sort would', async () => {
  const base = (await parts())[0].profile;
  const n = base.timeline!.times.length;
  // 13 copies of a real process (an odd count: the tournament is not a full tree), each with its own jittered times.
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const copies: MergePart[] = Array.from({ length: 13 }, (_, j) => {
    const times = new Float64Array(n);
    let t = 0;
    for (let i = 0; i < n; i++) times[i] = t += j % 3 === 0 ? 1 : Math.floor(rand() * 3);
    return { profile: { ...base, timeline: { nodes: base.timeline!.nodes, times } }, thread: `p${j}`, startMs: 1000 + (j % 4) };
  });
  const merged = mergeProfiles(copies, { ...base.meta });
  const want = copies
    .flatMap((c, j) => [...c.profile.timeline!.times].map((t, i) => ({ t: t + (c.startMs! - 1000), j, i })))
    .sort((a, b) => a.t - b.t || a.j - b.j || a.i - b.i);
  assert.equal(merged.timeline!.times.length, want.length);
  const threadOf = (node: number) => {
    let m = node;
    while (merged.tree.parent[m] !== 0) m = merged.tree.parent[m];
    return merged.frames[merged.tree.frame[m]].name;
  };
  for (let o = 0; o < want.length; o++) {
    assert.equal(merged.timeline!.times[o], want[o].t, `time at ${o}`);
    assert.equal(threadOf(merged.timeline!.nodes[o]), `thread p${want[o].j}`, `part at ${o}`);
    assert.equal(stackOf(merged, merged.timeline!.nodes[o]), stackOf(base, base.timeline!.nodes[want[o].i]), `stack at ${o}`);
  }
});

test('parts packed in 2- or 4-byte steps, and parts whose times cannot be packed, merge as they do unpacked', async () => {
  const base = (await parts())[0].profile;
  const n = base.timeline!.times.length;
  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Whole µs a millisecond apart (2-byte steps), with a 70 ms gap now and then (4-byte steps), and half-µs times (kept).
  const shapes = [(i: number) => i * 1.001, (i: number) => i + 70 * Math.floor(i / 50), (i: number) => i * 0.9995 + rand() * 1e-4];
  const copies: MergePart[] = Array.from({ length: 6 }, (_, j) => {
    const times = new Float64Array(n);
    let t = 0;
    for (let i = 0; i < n; i++) times[i] = t += shapes[j % 3](i) - (i ? shapes[j % 3](i - 1) : 0);
    for (let i = 0; i < n; i++) times[i] = j % 3 === 2 ? times[i] : Math.round(times[i] * 1000) / 1000;
    return { profile: { ...base, timeline: { nodes: base.timeline!.nodes, times } }, thread: `p${j}`, startMs: 1000 + j * 0.25 };
  });
  const packed = copies.map((c) => ({
    ...c,
    profile: { ...c.profile, timeline: undefined },
    packed: packTimeline(c.profile.timeline!, c.profile.tree.count),
  }));
  assert.ok(packed[0].packed.steps instanceof Uint16Array, '1 ms apart: 2-byte steps');
  assert.ok(packed[1].packed.steps instanceof Uint32Array, 'a 70 ms gap: 4-byte steps');
  assert.equal(packed[2].packed.steps, undefined, 'not whole µs: kept as it is');
  assert.ok(packed[0].packed.nodes instanceof Uint16Array);
  assert.deepEqual(mergeProfiles(packed, { ...base.meta }), mergeProfiles(copies, { ...base.meta }));
});
