// A merged run's timeline is merged when it is first read. A report of a trace of two processes never reads it: its
// findings need each process's gaps and its span the last sample's time, and both come from the parts as they are
// (the merge and a pass over its result were ~50 of the ~530 ms CPU of reading a 30 MB trace).
import type { Profile } from './profile';
import type { TimelineSource } from './packedTimeline';
import { PACKED_BLOCK_BITS, WIDE_US } from './mergedTimes';

type Timeline = NonNullable<Profile['timeline']>;

/** One process's samples as the merge takes them: its timeline and its nodes' nodes in the merged tree. */
export interface PendingPart {
  tl: TimelineSource;
  nodes: Int32Array;
  /** Its level in the merged tree. */
  thread: string;
  /** Its shift on the run's axis, ms. */
  offset: number;
}

const pending = new WeakMap<Profile, PendingPart[]>();

/** The parts of `profile`'s timeline while it is not merged yet. */
export function pendingParts(profile: Profile): readonly PendingPart[] | undefined {
  return pending.get(profile);
}

/**
 * Parts whose merge can wait: whole µs in order (sums or steps, never a time going back, so the merged last sample is
 * the latest of theirs), unweighted, each its own level.
 */
export function canWait(parts: readonly PendingPart[]): boolean {
  return (
    parts.length > 1 &&
    new Set(parts.map((p) => p.thread)).size === parts.length &&
    parts.every((p) => (p.tl.sums || p.tl.steps) && !p.tl.weights && !p.tl.times)
  );
}

/**
 * `profile.timeline` becomes `merge()` when first read (and stays: a plain property again); written first, what is
 * written. Enumerable where the built timeline was, so copies and messages of the profile are as they were.
 */
export function timelineWhenRead(profile: Profile, parts: PendingPart[], merge: () => Timeline): void {
  pending.set(profile, parts);
  const settle = (tl: Timeline | undefined) => {
    pending.delete(profile);
    Object.defineProperty(profile, 'timeline', { value: tl, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(profile, 'timeline', {
    enumerable: true,
    configurable: true,
    get() {
      const tl = merge();
      settle(tl);
      return tl;
    },
    set(tl: Timeline | undefined) {
      settle(tl);
    },
  });
}

/** Sample `i`'s whole µs of a part with sums (see TimelineSource.sums). */
function sumAt(p: NonNullable<TimelineSource['sums']>, i: number): number {
  const d = p.us[i];
  return d === WIDE_US ? p.wide.get(i)! : p.blockUs[i >>> PACKED_BLOCK_BITS] + d;
}

/** The merged timeline's last sample time (ms): the latest of the parts' last, each `µs / 1000 + offset` as merged. */
export function pendingLastTime(parts: readonly PendingPart[]): number | undefined {
  let last: number | undefined;
  for (const p of parts) {
    const n = p.tl.length;
    if (!n) continue;
    const t = lastUs(p.tl) / 1000 + p.offset;
    if (last === undefined || t > last) last = t;
  }
  return last;
}

function lastUs(tl: TimelineSource): number {
  const n = tl.length;
  if (tl.sums) return n > 1 ? sumAt(tl.sums, n - 1) : tl.firstUs;
  let us = tl.firstUs;
  const steps = tl.steps!;
  for (let i = 1; i < n; i++) us += steps[i];
  return us;
}

/** What partGroupGaps finds of a group: its samples, their gaps and their first and last time (ms). */
export interface GroupGaps {
  count: number;
  gaps: number;
  first: number;
  last: number;
}

/**
 * groupGaps over one part, the only one of group `g`, without the merge: its samples in their order (the merged
 * timeline's order of them), each on its merged node and at `µs / 1000 + offset`, the merge's time of it, a step
 * compared in whole µs first as packedGroupGaps does (the same step: both samples have the part's offset). Undefined
 * when a sample is in another group.
 */
export function partGroupGaps(part: PendingPart, movedTo: Int32Array, group: Int32Array, g: number, gapMs: number): GroupGaps | undefined {
  const tl = part.tl;
  const args = [tl.nodes, part.nodes, movedTo, group, g, gapMs * 1000 - 2] as const;
  const count = tl.sums ? sumsGaps(tl.sums, tl.firstUs, tl.length, ...args) : stepsGaps(tl.steps!, tl.firstUs, tl.length, ...args);
  if (count < 0) {
    gapList.length = 0;
    return undefined;
  }
  const [firstUs, lastUs] = [seenFirst, seenLast];
  // The gaps found in µs are added as the merged times' differences, in order: the same sums as groupGaps.
  const off = part.offset;
  let gaps = 0;
  for (let k = 0; k < gapList.length; k += 2) {
    const d = gapList[k + 1] / 1000 + off - (gapList[k] / 1000 + off);
    if (d > gapMs) gaps += d;
  }
  gapList.length = 0;
  return { count, gaps, first: firstUs / 1000 + off, last: lastUs / 1000 + off };
}

/** The µs before and after each step that may be a gap, in pairs (rare: a step over the gap less 2 µs). */
const gapList: number[] = [];

// The loops' first and last µs counted. Variables, not a typed array or an object: a store after a loop has no type
// feedback when the loop is compiled on stack, and that code gave up there on each part.
let seenFirst = 0;
let seenLast = 0;

// One loop for each kind of part, each a small function of its own (one shape of loads): the samples counted, or -1
// when one is in another group.
function sumsGaps(
  sums: NonNullable<TimelineSource['sums']>,
  firstUs: number,
  n: number,
  src: ArrayLike<number>,
  moved: Int32Array,
  movedTo: Int32Array,
  group: Int32Array,
  g: number,
  maybe: number,
): number {
  const size = movedTo.length;
  const { us, blockUs, wide } = sums;
  let count = 0;
  let first = 0;
  let last = 0;
  for (let i = 0; i < n; i++) {
    const node = moved[src[i]];
    if (node >= size || movedTo[node] < 0) continue;
    if (group[node] !== g) return -1;
    const d = us[i];
    const v = i === 0 ? firstUs : d === WIDE_US ? wide.get(i)! : blockUs[i >>> PACKED_BLOCK_BITS] + d;
    if (count++ === 0) first = v;
    else if (v - last > maybe) gapList.push(last, v);
    last = v;
  }
  seenFirst = first;
  seenLast = last;
  return count;
}

function stepsGaps(
  steps: Uint16Array | Uint32Array,
  firstUs: number,
  n: number,
  src: ArrayLike<number>,
  moved: Int32Array,
  movedTo: Int32Array,
  group: Int32Array,
  g: number,
  maybe: number,
): number {
  const size = movedTo.length;
  let count = 0;
  let first = 0;
  let last = 0;
  let v = firstUs;
  for (let i = 0; i < n; i++) {
    if (i > 0) v += steps[i];
    const node = moved[src[i]];
    if (node >= size || movedTo[node] < 0) continue;
    if (group[node] !== g) return -1;
    if (count++ === 0) first = v;
    else if (v - last > maybe) gapList.push(last, v);
    last = v;
  }
  seenFirst = first;
  seenLast = last;
  return count;
}

/** The part's samples of group `g` on their nodes in the group's tree (`movedTo`), in order: `count` of them. */
export function partCut(part: PendingPart, movedTo: Int32Array, group: Int32Array, g: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  const src = part.tl.nodes;
  const moved = part.nodes;
  const size = movedTo.length;
  for (let i = 0, o = 0; i < part.tl.length; i++) {
    const node = moved[src[i]];
    if (node < size && group[node] === g && movedTo[node] >= 0) out[o++] = movedTo[node];
  }
  return out;
}
