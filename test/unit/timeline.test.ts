import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { v8logImporter } from '../../src/core/importers/v8log';
import { foldedImporter } from '../../src/core/importers/folded';
import { PerfScriptParser } from '../../src/core/importers/perf';
import { selectThreads } from '../../src/core/model/processes';
import { functionStats, type Profile } from '../../src/core/model';
import { activity, noTimeReason, OPEN_END, restrictToRange, timeOrdered, timeSpan } from '../../src/core/model/timeline';
import { applyTransforms, splitRange } from '../../src/core/model/transforms';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { toJsonReport } from '../../src/core/exporters/json';
import { mergeTimelines } from '../../src/core/importers/v8log/timeline';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';

// test/fixtures/timeline/phases.cpuprofile: a real `node --cpu-prof` run of phases.js (make.sh): ~400 ms idle,
// ~400 ms in firstHot, ~400 ms in secondHot, sampled every ~1 ms.
const PHASES = join(fixtures, 'timeline', 'phases.cpuprofile');
const load = () => cpuprofileImporter.load(PHASES, { sourceMaps: false });

/** Each function's share of the profile's self weight, by name. */
function selfShares(p: Profile): Record<string, number> {
  const all = p.tree.weight;
  const out: Record<string, number> = {};
  for (const s of functionStats(p.tree, p.frames.length)) out[p.frames[s.frame].name] = (out[p.frames[s.frame].name] ?? 0) + s.self / all;
  return out;
}

/** Where a function's samples start and end on the timeline (ms). */
function spanOf(p: Profile, name: string): { first: number; last: number } {
  const tl = p.timeline!;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < tl.times.length; i++) {
    const f = p.frames[p.tree.frame[tl.nodes[i]]];
    if (f?.name !== name) continue;
    first = Math.min(first, tl.times[i]);
    last = Math.max(last, tl.times[i]);
  }
  return { first, last };
}

test('the activity graph shows the idle stretch, then the two hot ones, stacked by category', async () => {
  const p = await load();
  const span = timeSpan(p)!;
  assert.ok(span.end > 1100 && span.end < 1600, `span ${span.end}`);
  const a = activity(p, 0, span.end, 12);
  assert.equal(a.samples, p.timeline!.times.length);
  const sum = (c: keyof typeof a.series, b: number) => a.series[c]?.[b] ?? 0;
  // The first quarter is idle; the last third is app code.
  assert.ok(sum('idle', 1) > 0.9 * (sum('idle', 1) + sum('app', 1)), JSON.stringify(a.series));
  assert.ok(sum('app', 10) > 0.9 * (sum('idle', 10) + sum('app', 10)), JSON.stringify(a.series));
  const total = Object.values(a.series).reduce((s, r) => s + r!.reduce((x, y) => x + y, 0), 0);
  assert.equal(total, a.samples);
  assert.ok(a.peak >= Math.max(...a.series.app!));
});

test('a range transform keeps only that stretch: the second hot function near 100 %, the first absent', async () => {
  const p = await load();
  const first = spanOf(p, 'firstHot');
  const second = spanOf(p, 'secondHot');
  assert.ok(first.last < second.first + 5, `${JSON.stringify(first)} ${JSON.stringify(second)}`);
  const r = applyTransforms(p, [], { from: first.last + 1, to: second.last + 1 });
  const shares = selfShares(r);
  assert.equal(shares.firstHot ?? 0, 0);
  assert.ok(shares.secondHot > 0.97, JSON.stringify(shares));
  assert.equal(r.tree.weight, r.timeline!.times.length);
  // Every node left ran in the range, and the timeline indexes the new tree.
  const total = r.tree.total;
  for (let i = 1; i < r.tree.count; i++) assert.ok(total[i] > 0);
  for (const n of r.timeline!.nodes) assert.ok(n < r.tree.count);
  // Line heat follows: the second function's line, not the first's.
  const heat = [...(r.lineHits.values().next().value ?? new Map()).keys()];
  assert.ok(heat.length > 0);
  assert.equal(r.meta.range!.from, first.last + 1);
  const json = toJsonReport(r);
  assert.equal(json.startTime, first.last + 1);
  assert.equal(json.endTime, second.last + 1);
  assert.equal(toJsonReport(p).startTime, 0);
  assert.equal(toJsonReport(p).endTime, Math.round(timeSpan(p)!.end * 1e6) / 1e6);
});

test('a range applies before the transforms; a stack saved with two ranges opens with what both cover', async () => {
  const p = await load();
  const second = spanOf(p, 'secondHot');
  // A page of an earlier version saved its range among the transforms: read back as the stack and one range.
  const saved = splitRange([
    { kind: 'merge-function', fn: { name: 'listOnTimeout' } },
    { kind: 'range', from: second.first, to: OPEN_END },
    { kind: 'range', from: 0, to: second.last + 1 },
  ]);
  assert.deepEqual(saved.range, { from: second.first, to: second.last + 1 });
  assert.deepEqual(saved.transforms, [{ kind: 'merge-function', fn: { name: 'listOnTimeout' } }]);
  const r = applyTransforms(p, saved.transforms, saved.range);
  assert.ok(
    !r.frames.some(
      (f, i) => f.name === 'listOnTimeout' && functionStats(r.tree, r.frames.length).some((s) => s.frame === i && s.total > 0),
    ),
  );
  assert.ok(selfShares(r).secondHot > 0.97);
  assert.equal(r.meta.range!.to, second.last + 1);
  // The idle stretch alone has no app code.
  const idle = restrictToRange(p, 50, 300);
  assert.ok(selfShares(idle)['(idle)'] > 0.95, JSON.stringify(selfShares(idle)));
});

test('call-tree transforms keep the timeline: each sample on its new node, the dropped ones gone', async () => {
  const p = await load();
  const n = p.timeline!.times.length;
  const second = spanOf(p, 'secondHot');
  const first = spanOf(p, 'firstHot');
  const check = (r: Profile, what: string) => {
    assert.ok(r.timeline, `${what}: a timeline`);
    const tl = r.timeline!;
    assert.equal(tl.times.length, r.tree.weight, `${what}: one timeline sample per sample of the tree`);
    for (let i = 0; i < tl.nodes.length; i++) assert.ok(tl.nodes[i] < r.tree.count && (i === 0 || tl.times[i] >= tl.times[i - 1]));
    const a = activity(r, 0, timeSpan(r)!.end, 10);
    assert.equal(a.samples, tl.times.length, `${what}: the activity graph counts them`);
    return tl;
  };
  // Focus: only the samples under secondHot are left, all within its stretch.
  const focused = check(applyTransforms(p, [{ kind: 'focus-function', fn: { name: 'secondHot' } }]), 'focus');
  assert.ok(focused.times.length > 100 && focused.times.length < n);
  assert.ok(focused.times.every((t) => t >= second.first && t <= second.last));
  // Drop: firstHot's stretch empties, the rest stays.
  const dropped = applyTransforms(p, [{ kind: 'drop-function', fn: { name: 'firstHot' } }]);
  const dtl = check(dropped, 'drop');
  // (a few samples of that stretch are GC or the program, not under firstHot)
  const inFirst = (times: Float64Array) => Array.from(times).filter((t) => t >= first.first && t <= first.last).length;
  assert.ok(inFirst(dtl.times) < 0.1 * inFirst(p.timeline!.times), `${inFirst(dtl.times)} of ${inFirst(p.timeline!.times)} left`);
  assert.equal(spanOf(dropped, 'secondHot').first, second.first);
  // Merge: every sample stays; firstHot's go to its caller.
  const merged = applyTransforms(p, [{ kind: 'merge-function', fn: { name: 'firstHot' } }]);
  assert.equal(check(merged, 'merge').times.length, n);
  assert.equal(spanOf(merged, 'firstHot').first, Infinity);
  // Transforms after a range, and a focus on a path: still on the range's clock.
  const both = applyTransforms(
    p,
    [
      { kind: 'focus-subtree', path: [{ name: 'processTimers' }] },
      { kind: 'exclude', regex: '^listOnTimeout$' },
      { kind: 'collapse-recursion', fn: { name: 'secondHot' } },
      { kind: 'merge-package', package: 'node:internal' },
    ],
    { from: first.first, to: second.last + 1 },
  );
  check(both, 'range, then the others');
  const json = toJsonReport(applyTransforms(p, [{ kind: 'focus-function', fn: { name: 'secondHot' } }]));
  assert.ok(
    typeof json.startTime === 'number' && typeof json.endTime === 'number' && json.endTime > json.startTime,
    `${json.startTime}–${json.endTime}`,
  );
});

const long = (bs: { start: number; end: number }[]) => bs.reduce((s, b) => s + b.end - b.start, 0);

test('the time-ordered chart: one box per call, in time order, the hot functions side by side', async () => {
  const p = await load();
  const span = timeSpan(p)!;
  const { boxes, depth, truncated } = timeOrdered(p, 0, span.end, 0);
  assert.ok(!truncated);
  assert.ok(depth >= 4);
  const named = (n: string) => boxes.filter((b) => p.frames[b.frame].name === n);
  const first = named('firstHot');
  const second = named('secondHot');
  // One stretch each (GC may split a stretch in two or three), the first before the second.
  assert.ok(first.length >= 1 && first.length <= 4, `${first.length}`);
  assert.ok(second.length >= 1 && second.length <= 4);
  assert.ok(Math.max(...first.map((b) => b.end)) <= Math.min(...second.map((b) => b.start)) + 2);
  assert.ok(long(first) > 250 && long(second) > 250, `${long(first)} ${long(second)}`);
  // Their caller spans both (a GC sample at the root may split it).
  const from = first[0].start;
  const to = second[second.length - 1].end;
  const caller = boxes.filter((b) => b.depth === first[0].depth - 1 && b.end > from && b.start < to);
  assert.ok(caller.length >= 1 && caller.length <= 4, `${caller.length}`);
  assert.ok(long(caller) > 0.95 * (to - from));
  // One sample per column when the window holds more samples than columns: the same two stretches, fewer boxes.
  const coarse = timeOrdered(p, 0, span.end, 0, 50000, 100);
  const coarseNamed = (n: string) => coarse.boxes.filter((b) => p.frames[b.frame].name === n);
  assert.ok(coarse.boxes.length < boxes.length, `${coarse.boxes.length} < ${boxes.length}`);
  assert.ok(long(coarseNamed('firstHot')) > 250 && long(coarseNamed('secondHot')) > 250);
  assert.ok(Math.max(...coarseNamed('firstHot').map((b) => b.end)) <= Math.min(...coarseNamed('secondHot').map((b) => b.start)) + 15);
  // Boxes under a minimum width are left out.
  assert.ok(timeOrdered(p, 0, span.end, 100).boxes.every((b) => b.end - b.start >= 100));
});

test('a real --prof tick log has a timeline too; folded stacks have none and say why', async () => {
  const v = await v8logImporter.load(join(fixtures, 'v8log', 'prof.log'), {});
  assert.equal(noTimeReason(v), undefined);
  const span = timeSpan(v)!;
  const half = restrictToRange(v, 0, span.end / 2);
  assert.ok(half.tree.weight > 0 && half.tree.weight < v.tree.weight);
  const rest = restrictToRange(v, span.end / 2, span.end + 1);
  assert.equal(half.tree.weight + rest.tree.weight, v.tree.weight);
  const file = tempFiles('nf-timeline-', '.folded');
  const folded = await foldedImporter.load(file('main;a 3\nmain;b 2\n'), {});
  assert.equal(noTimeReason(folded), 'folded');
  assert.equal(timeSpan(folded), undefined);
  const same = applyTransforms(folded, [], { from: 0, to: 1 });
  assert.equal(same.tree.weight, 5);
  assert.ok(same.warnings.some((w) => /no sample times/.test(w)));
});

// Samples as this machine's `perf script -F comm,pid,tid,time,period,event,ip,sym,dso` printed them for a
// `perf record -g -F 999 node --perf-basic-prof phases.js` run (stacks cut after three frames; a worker thread's
// sample put out of order, as samples of two CPUs arrive).
const PERF = [
  'node 32032/32032 13037.869218:    1001001 cpu-clock:ppp: ',
  '\t    7f6acafc5d1e JS:^firstHot /work/wt/time21/test/fixtures/timeline/phases.js:3:18 (/tmp/perf-32032.map)',
  '\t         14cfd1c Builtins_InterpreterEntryTrampoline (/usr/bin/node)',
  '\t          805618 node::Environment::RunTimers (/usr/bin/node)',
  '',
  'node 32032/32032 13037.999701:    1001001 cpu-clock:ppp: ',
  '\t    7f6acafc7070 JS:*firstHot /work/wt/time21/test/fixtures/timeline/phases.js:3:18 (/tmp/perf-32032.map)',
  '\t         14cfd1c Builtins_InterpreterEntryTrampoline (/usr/bin/node)',
  '\t          805618 node::Environment::RunTimers (/usr/bin/node)',
  '',
  'node 32032/32032 13038.410187:    1001001 cpu-clock:ppp: ',
  '\t    7f6acafc77b2 JS:*secondHot /work/wt/time21/test/fixtures/timeline/phases.js:9:19 (/tmp/perf-32032.map)',
  '\t         14cfd1c Builtins_InterpreterEntryTrampoline (/usr/bin/node)',
  '\t          805618 node::Environment::RunTimers (/usr/bin/node)',
  '',
  'V8 DefaultWorke 32032/32035 13038.000203:    2002002 cpu-clock:ppp: ',
  '\tffffffff815a23ce filemap_map_pages ([kernel.kallsyms])',
  '\t          98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
].join('\n');

test('perf timestamps feed the timeline: samples in time order, weighted by period, across threads', () => {
  const parser = new PerfScriptParser();
  parser.push(PERF);
  const p = parser.end();
  const tl = p.timeline!;
  assert.equal(noTimeReason(p), undefined);
  assert.deepEqual(
    Array.from(tl.times, (t) => Math.round(t * 1000) / 1000),
    [0, 130.483, 130.985, 540.969],
  );
  assert.deepEqual(Array.from(tl.weights!), [1001001, 1001001, 2002002, 1001001]);
  const leaf = (i: number) => p.frames[p.tree.frame[tl.nodes[i]]].name;
  assert.deepEqual([0, 1, 2, 3].map(leaf), ['firstHot', 'firstHot', 'filemap_map_pages', 'secondHot']);
  // The worker's sample weighs two periods: a range over it and the second firstHot keeps 3 of 5 periods.
  const r = restrictToRange(p, 100, 200);
  assert.equal(r.tree.weight, 3003003);
  assert.deepEqual(r.threads.map((t) => t.samples).sort(), [1001001, 2002002]);
  const last = restrictToRange(p, 500, 600);
  assert.deepEqual(
    Object.keys(selfShares(last)).filter((n) => selfShares(last)[n] > 0),
    ['secondHot'],
  );
});

test("the process and thread picker keeps the chosen threads' samples on the Timeline, on their new nodes", () => {
  const parser = new PerfScriptParser();
  parser.push(PERF);
  const p = parser.end();
  assert.equal(p.threads.length, 2);
  const main = p.threads.find((t) => t.samples === 3003003)!;
  const only = selectThreads(p, [main.name]);
  const tl = only.timeline!;
  assert.ok(tl, 'one thread chosen keeps a Timeline');
  assert.equal(noTimeReason(only), undefined);
  assert.deepEqual(Array.from(tl.weights!), [1001001, 1001001, 1001001], "the other thread's sample is gone");
  const leaf = (i: number) => only.frames[only.tree.frame[tl.nodes[i]]].name;
  assert.deepEqual([0, 1, 2].map(leaf), ['firstHot', 'firstHot', 'secondHot']);
  // A range over the chosen thread reads the kept samples.
  assert.equal(restrictToRange(only, 500, 600).tree.weight, 1001001);
});

test("the viewer's Timeline follows the call-tree transforms, not the range: a dropped function leaves its activity", async () => {
  const p = await load();
  const first = spanOf(p, 'firstHot');
  const session = new ViewerSession(p, 'phases.cpuprofile', PHASES);
  assert.equal(session.timelineProfile(), session.pickedProfile());
  // A range alone: the Timeline keeps the whole span (the range is marked on it, not cut out).
  session.setRange({ from: first.last + 1, to: OPEN_END });
  assert.equal(session.timelineProfile().timeline!.times.length, p.timeline!.times.length);
  assert.ok(session.shownProfile().timeline!.times.length < p.timeline!.times.length, 'the views show the range');
  // Drop firstHot (the range stays): its stretch empties on the Timeline, the flame graph keeps only the range.
  session.setTransforms([{ kind: 'drop-function', fn: { name: 'firstHot' } }]);
  assert.deepEqual(session.range, { from: first.last + 1, to: OPEN_END });
  const tl = session.timelineProfile();
  assert.equal(spanOf(tl, 'firstHot').first, Infinity);
  assert.ok(tl.timeline!.times.length < p.timeline!.times.length);
  assert.ok(tl.timeline!.times[0] < first.first, 'the idle stretch before the range is still drawn');
  const a = activity(tl, first.first, first.last, 4);
  const b = activity(p, first.first, first.last, 4);
  assert.ok(a.samples < 0.1 * b.samples, `${a.samples} of ${b.samples} samples left in firstHot's stretch`);
});

test("a process's isolates' timelines merged on one axis: in time order, each shifted by its start", () => {
  // The main thread's ticks from 0 ms; a worker's from its own first tick, which came 1.5 ms later.
  const main = { nodes: Uint32Array.of(1, 2, 3), times: Float64Array.of(0, 1, 2), offsetMs: 0 };
  const worker = { nodes: Uint32Array.of(7, 8), times: Float64Array.of(0, 1), offsetMs: 1.5 };
  const m = mergeTimelines([main, worker]);
  assert.deepEqual([...m.nodes], [1, 2, 7, 3, 8]);
  assert.deepEqual([...m.times], [0, 1, 1.5, 2, 2.5]);
  // At the same time, the earlier part's sample first; an empty part adds nothing.
  const tie = mergeTimelines([
    { ...main, offsetMs: 1 },
    { ...worker, offsetMs: 1 },
    { nodes: new Uint32Array(0), times: new Float64Array(0), offsetMs: 0 },
  ]);
  assert.deepEqual([...tie.nodes], [1, 7, 2, 8, 3]);
});
