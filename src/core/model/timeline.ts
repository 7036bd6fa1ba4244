import * as l10n from '@vscode/l10n';
import { activityIndexOf } from './activityIndex';
import { CallTree } from './callTree';
import { CATEGORIES, type Category } from './frame';
import type { LineHits, Profile } from './profile';
import { lastTime, sampleCount, unpackSome } from './mergedTimes';
import { pendingLastTime, pendingParts } from './pendingTimeline';
import { threadOfLevel } from './threadLevel';

/** Times are ms from the profile's first sample, as importers keep them in `Profile.timeline`. */
export type Timeline = NonNullable<Profile['timeline']>;

/** Why a profile has no time axis, or undefined when it has one. */
export function noTimeReason(profile: Profile): 'folded' | 'threads' | 'none' | undefined {
  if (profile.timeline && sampleCount(profile.timeline) > 0) return undefined;
  if (profile.format === 'folded') return 'folded';
  return profile.threads.length > 1 ? 'threads' : 'none';
}

/** The last sample's time (ms; times are in order), or undefined for a profile without sample times. */
export function lastSampleTime(profile: Profile): number | undefined {
  const parts = pendingParts(profile);
  if (parts) return pendingLastTime(parts);
  return profile.timeline && lastTime(profile.timeline);
}

/** The span the samples cover: from 0 to the last sample's end (the profile's duration when longer). */
export function timeSpan(profile: Profile): { start: number; end: number } | undefined {
  const last = lastSampleTime(profile);
  if (last === undefined) return undefined;
  return { start: 0, end: Math.max(last + (profile.meta.intervalMs ?? 0), profile.meta.durationMs ?? 0) };
}

/** The first sample index whose time is ≥ `t` (times are in order). */
export function lowerBound(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Samples per time bucket, one row per category (the leaf frame's), for a stacked activity graph. */
export interface Activity {
  from: number;
  to: number;
  bucketMs: number;
  /** Category → samples per bucket; only the categories that occur. */
  series: Partial<Record<Category, number[]>>;
  /** The most samples any bucket holds (all categories together). */
  peak: number;
  samples: number;
}

/** The activity in [from, to) cut into `buckets` equal buckets. */
export function activity(profile: Profile, from: number, to: number, buckets: number): Activity {
  const tl = profile.timeline;
  const n = Math.max(1, Math.floor(buckets));
  const width = Math.max(to - from, 1e-6) / n;
  const out: Activity = { from, to, bucketMs: width, series: {}, peak: 0, samples: 0 };
  if (!tl) return out;
  const K = CATEGORIES.length;
  const { counts, samples } = activityIndexOf(profile, tl).counts(from, to, n, width);
  out.samples = samples;
  for (let c = 0; c < K; c++) {
    let any = false;
    for (let b = 0; b < n && !any; b++) any = counts[b * K + c] > 0;
    if (any) out.series[CATEGORIES[c]] = Array.from({ length: n }, (_, b) => counts[b * K + c]);
  }
  for (let b = 0; b < n; b++) {
    let all = 0;
    for (let c = 0; c < K; c++) all += counts[b * K + c];
    if (all > out.peak) out.peak = all;
  }
  return out;
}

/** A box of the time-ordered flame chart: `frame` (a profile frame) ran from `start` to `end` at `depth` (0: outermost). */
export interface TimeBox {
  depth: number;
  start: number;
  end: number;
  frame: number;
}

/**
 * Stacks laid out along time in [from, to): consecutive samples sharing a call path share its boxes. Boxes
 * shorter than `minMs` are left out (they are under a pixel); at most `maxBoxes`, longest kept. With more
 * samples in the window than `columns`, one sample per column stands for it (the stack running at that
 * moment), so a million samples cost what a screen's width does. A profile of several threads (a run's
 * processes) gets a lane per thread, one under the other, the earliest to run on top: their samples
 * interleave in time, and laid out as one sequence every box would end at the next thread's sample.
 */
export function timeOrdered(
  profile: Profile,
  from: number,
  to: number,
  minMs: number,
  maxBoxes = 50000,
  columns = Infinity,
): { boxes: TimeBox[]; depth: number; truncated: boolean } {
  const tl = profile.timeline;
  const boxes: TimeBox[] = [];
  if (!tl) return { boxes, depth: 0, truncated: false };
  let depth = 0;
  for (const lane of lanesOf(profile, tl)) {
    const before = boxes.length;
    const d = layOut(profile, lane, from, to, minMs, columns, boxes);
    for (let i = before; i < boxes.length; i++) boxes[i].depth += depth;
    depth += d;
  }
  let truncated = false;
  if (boxes.length > maxBoxes) {
    boxes.sort((a, b) => b.end - b.start - (a.end - a.start));
    boxes.length = maxBoxes;
    truncated = true;
  }
  return { boxes, depth, truncated };
}

/** One thread's samples of a profile with several, and the tree node of its level (0: the whole profile). */
type Lane = Timeline & { top: number };

const lanesCache = new WeakMap<Timeline, Lane[]>();

/** The timeline as one per thread (the root's children of a profile with several), in order of their first sample. */
function lanesOf(profile: Profile, tl: Timeline): Lane[] {
  if (profile.threads.length < 2) return [{ ...tl, top: 0 }];
  let lanes = lanesCache.get(tl);
  if (lanes) return lanes;
  const t = profile.tree;
  const top = new Int32Array(t.count);
  for (let i = 1; i < t.count; i++) top[i] = t.parent[i] === 0 ? i : top[t.parent[i]];
  const laneOf = new Map<number, number>();
  const tops: number[] = [];
  const counts: number[] = [];
  // The timeline's arrays read into locals once: a packed timeline's `times` is a getter, and a loop over tens of
  // millions of samples pays a property read per sample otherwise.
  const tlNodes = tl.nodes;
  const which = new Int32Array(tlNodes.length);
  for (let i = 0; i < tlNodes.length; i++) {
    const k = top[tlNodes[i]] ?? 0;
    let l = laneOf.get(k);
    if (l === undefined) {
      laneOf.set(k, (l = counts.length));
      tops.push(k);
      counts.push(0);
    }
    which[i] = l;
    counts[l]++;
  }
  lanes = counts.map((n, l) => ({ nodes: new Uint32Array(n), times: new Float64Array(n), top: tops[l] }));
  const at = counts.map(() => 0);
  const tlTimes = tl.times;
  for (let i = 0; i < tlNodes.length; i++) {
    const l = which[i];
    lanes[l].nodes[at[l]] = tlNodes[i];
    lanes[l].times[at[l]++] = tlTimes[i];
  }
  lanesCache.set(tl, lanes);
  return lanes;
}

/**
 * The activity of each thread of a profile with several (a run's processes), in order of their first sample,
 * each named as its thread (`pid 4242 server.js`); empty for one thread.
 */
export function threadActivities(profile: Profile, from: number, to: number, buckets: number): { thread: string; activity: Activity }[] {
  const tl = profile.timeline;
  if (!tl || profile.threads.length < 2) return [];
  return lanesOf(profile, tl).map((lane) => {
    const f = profile.frames[profile.tree.frame[lane.top]];
    const thread = (lane.top > 0 && threadOfLevel(f)) || '';
    return { thread, activity: activity({ ...profile, timeline: lane }, from, to, buckets) };
  });
}

/**
 * Counts a profile's Timeline index (and each thread lane's), and unpacks packed sample times, ahead of the first
 * Timeline answer, a slice at a time: each call does up to `max` samples and says whether all is done. The answers are
 * the same with or without it; only the first one is faster.
 */
export function timelineWarmUp(profile: Profile): (max: number) => boolean {
  const tl = profile.timeline;
  if (!tl) return () => true;
  let lanes: Lane[] | undefined;
  return (max) => {
    if (!activityIndexOf(profile, tl).step(max)) return false;
    if (!unpackSome(tl, max)) return false;
    if (profile.threads.length < 2) return true;
    lanes ??= lanesOf(profile, tl);
    return lanes.every((lane) => activityIndexOf(profile, lane).step(max));
  };
}

/** One lane's boxes in [from, to), appended to `boxes` with depths from 0; returns the lane's depth. */
function layOut(profile: Profile, tl: Timeline, from: number, to: number, minMs: number, columns: number, boxes: TimeBox[]): number {
  const t = profile.tree;
  const lo = lowerBound(tl.times, from);
  const hi = lowerBound(tl.times, to);
  let nodes: ArrayLike<number> = tl.nodes.subarray(lo, hi);
  let times: ArrayLike<number> = tl.times.subarray(lo, hi);
  let step = profile.meta.intervalMs ?? 0;
  if (hi - lo > columns) {
    const col = (to - from) / columns;
    const pn: number[] = [];
    const pt: number[] = [];
    for (let c = 0; c < columns; c++) {
      const i = lowerBound(tl.times, from + c * col);
      if (i < hi && tl.times[i] < from + (c + 1) * col) {
        pn.push(tl.nodes[i]);
        pt.push(from + c * col);
      }
    }
    nodes = pn;
    times = pt;
    step = Math.max(step, col);
  }
  // The open path: tree node and start per depth.
  const openNode: number[] = [];
  const openStart: number[] = [];
  const path: number[] = [];
  let maxDepth = 0;
  const close = (keep: number, at: number) => {
    while (openNode.length > keep) {
      const d = openNode.length - 1;
      const node = openNode.pop()!;
      const start = openStart.pop()!;
      if (at - start >= minMs) boxes.push({ depth: d, start, end: at, frame: t.frame[node] });
    }
  };
  const n = times.length;
  let prevEnd = from;
  for (let i = 0; i < n; i++) {
    const at = times[i];
    // A gap of more than a few intervals without samples ends every box (the program was not running).
    if (step > 0 && at - prevEnd > 4 * step) close(0, prevEnd);
    path.length = 0;
    for (let x = nodes[i]; x > 0; x = t.parent[x]) if (t.frame[x] >= 0) path.push(x);
    path.reverse();
    let same = 0;
    while (same < path.length && same < openNode.length && openNode[same] === path[same]) same++;
    close(same, at);
    for (let d = same; d < path.length; d++) {
      openNode.push(path[d]);
      openStart.push(at);
    }
    if (path.length > maxDepth) maxDepth = path.length;
    const next = i + 1 < n ? times[i + 1] : lo + i + 1 < tl.times.length && n === hi - lo ? tl.times[lo + i + 1] : at + step;
    prevEnd = Math.min(next, at + (step > 0 ? 4 * step : next - at), to);
  }
  close(0, Math.min(prevEnd, to));
  return maxDepth;
}

/**
 * A time range of a profile, in ms from its start: state of its own beside the call-tree transforms (the Timeline
 * shows the whole span with the range marked on it, the other views show the range). `to` is OPEN_END for "to
 * the end"; JSON has no Infinity, and this one spelling crosses to the page, the saved state and the CLI alike.
 */
export interface TimeRange {
  from: number;
  to: number;
}
export const OPEN_END = Number.MAX_VALUE;

/** `from`/`to` as a range (either may be left out), or undefined when the numbers make none. */
export function timeRange(from: number | undefined, to: number | undefined): TimeRange | undefined {
  const r = { from: from ?? 0, to: to ?? OPEN_END };
  return Number.isFinite(r.from) && r.from >= 0 && r.to > r.from ? r : undefined;
}

/**
 * The profile restricted to the samples in [from, to) (ms from its start): tree weights, self times, line
 * heat and the timeline follow; the nodes that ran nothing in it are dropped. A profile
 * without a timeline comes back as it is (callers warn).
 */
export function restrictToRange(profile: Profile, from: number, to: number): Profile {
  const tl = profile.timeline;
  if (!tl)
    return { ...profile, warnings: [...profile.warnings, l10n.t('this profile has no sample times, so the time range was not applied')] };
  const src = profile.tree;
  const times = tl.times;
  const lo = lowerBound(times, from);
  const hi = lowerBound(times, to);
  const self = new Float64Array(src.count);
  const w = tl.weights;
  // Locals, not `tl.nodes` a sample: the editor's range of 4 M samples of a 434 MB profile took 185 ms in that loop.
  const nodes = tl.nodes;
  if (w) for (let i = lo; i < hi; i++) self[nodes[i]] += w[i];
  else for (let i = lo; i < hi; i++) self[nodes[i]]++;
  const { tree, moved } = treeOfSelf(profile, self);
  const start = Math.max(0, from);
  const end = Math.max(start, Math.min(to, timeSpan(profile)?.end ?? to));
  const meta = { ...profile.meta, durationMs: end - start, range: { from: start, to: end } };
  if (meta.sampleCount !== undefined && src.weight > 0) meta.sampleCount = Math.round((meta.sampleCount * tree.weight) / src.weight);
  const threads = threadsIn(profile, tree);
  return {
    ...profile,
    meta,
    tree,
    threads,
    // Views of the profile's own times and weights (never written): a range of millions of samples copies only its
    // nodes, and those when first read.
    timeline: rangeTimeline(nodes, lo, hi, moved, times.subarray(lo, hi), w?.subarray(lo, hi)),
    lineHits: rangeLineHits(profile, tree),
    deopts: profile.deopts?.filter((d) => d.timeMs >= from && d.timeMs < to),
  };
}

/**
 * A range's samples on the range's tree, its nodes mapped when first read: the views a range change answers (flame
 * graph, tables) do not read them, and mapping 4 M samples of a 40 M-sample profile was 95 ms of a 155 ms answer.
 */
function rangeTimeline(
  nodes: Uint32Array,
  lo: number,
  hi: number,
  moved: Int32Array,
  times: Float64Array,
  weights: Float64Array | undefined,
): Timeline {
  let mapped: Uint32Array | undefined;
  return {
    get nodes(): Uint32Array {
      return (mapped ??= movedNodes(nodes, lo, hi, moved));
    },
    times,
    ...(weights ? { weights } : {}),
  };
}

function movedNodes(nodes: Uint32Array, lo: number, hi: number, moved: Int32Array): Uint32Array {
  const out = new Uint32Array(hi - lo);
  for (let i = lo; i < hi; i++) {
    const m = moved[nodes[i]];
    out[i - lo] = m < 0 ? 0 : m;
  }
  return out;
}

/** The profile's threads with their weights in `tree` (a new tree of it: several threads are its root's children). */
export function threadsIn(profile: Profile, tree: CallTree): Profile['threads'] {
  if (profile.threads.length === 1) return [{ ...profile.threads[0], samples: tree.weight }];
  const byFrame = new Map<number, number>();
  for (const c of tree.children(0)) byFrame.set(tree.frame[c], (byFrame.get(tree.frame[c]) ?? 0) + tree.total[c]);
  return profile.threads.map((th) => {
    const f = profile.frames.findIndex((x) => threadOfLevel(x) === th.name);
    return { ...th, samples: f >= 0 ? (byFrame.get(f) ?? 0) : 0 };
  });
}

/**
 * Line heat of a range, from the frames' positions: a format's own line hits have no times. The leaf frame's
 * line gets self, every line on the stack (once per stack) total.
 */
export function rangeLineHits(profile: Profile, tree: CallTree): LineHits {
  const out: LineHits = new Map();
  const add = (file: string, line: number, self: number, total: number) => {
    if (!file || line <= 0) return;
    let m = out.get(file);
    if (!m) out.set(file, (m = new Map()));
    const h = m.get(line);
    if (h) {
      h.self += self;
      h.total += total;
    } else m.set(line, { self, total });
  };
  const seen = new Set<string>();
  for (let i = 1; i < tree.count; i++) {
    const w = tree.self[i];
    if (!(w > 0)) continue;
    seen.clear();
    for (let n = i; n > 0; n = tree.parent[n]) {
      const f = profile.frames[tree.frame[n]];
      if (!f) continue;
      const key = `${f.file}\0${f.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      add(f.file, f.line, n === i ? w : 0, w);
    }
  }
  return out;
}

/**
 * The profile's call tree with each node's self weight replaced by `self` (the samples some cut kept) and self time
 * scaled by the share of its weight kept; nodes left without weight go, so every view sees only what ran. `moved`:
 * each old node's new id (-1: gone), for the timeline to follow.
 */
export function treeOfSelf(profile: Profile, self: Float64Array): { tree: CallTree; moved: Int32Array } {
  const src = profile.tree;
  const full = CallTree.fromArrays(
    {
      count: src.count,
      parent: src.parent,
      frame: src.frame,
      self,
      selfTime: Array.from(self, (s, i) => (src.self[i] > 0 ? (src.selfTime[i] * s) / src.self[i] : 0)),
    },
    profile.frames.length,
  );
  const total = full.total;
  const moved = new Int32Array(full.count);
  const tree = full.rewrite((i, p, out) => (moved[i] = p >= 0 && total[i] > 0 ? out.child(p, full.frame[i]) : -1));
  return { tree, moved };
}
