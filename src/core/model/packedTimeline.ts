import type { Profile } from './profile';

type Timeline = NonNullable<Profile['timeline']>;

/**
 * One part's timeline as the run merge reads it: a sample's node and its time. Packed (`steps`), a time is held as
 * whole µs from the sample before, two or four bytes a sample, and the node in two bytes when the part's tree has
 * fewer than 65,536 nodes: a run of 20 processes holds every process's samples at once until they are merged, and
 * then the merged timeline (twelve bytes a sample) besides. Unpacked (`times`), the timeline's own arrays, not copied.
 */
export interface TimelineSource {
  length: number;
  nodes: Uint16Array | Uint32Array;
  /** Whole µs since the sample before (the first sample's own is 0: its time is `firstUs`). */
  steps?: Uint16Array | Uint32Array;
  /**
   * Or each sample's whole µs, packed as a reader's running sums are (numberList.ts's PackedSums): `blockUs[i >>>
   * PACKED_BLOCK_BITS] + us[i]`, or `wide.get(i)` where `us[i]` is WIDE_US. A trace's profiles are merged from them as
   * they are: no array of steps made of them first.
   */
  sums?: { us: Uint32Array; blockUs: Float64Array; wide: Map<number, number> };
  firstUs: number;
  /** Set when the times are not whole µs in order (steps and sums are then undefined). */
  times?: Float64Array;
  weights?: Float64Array;
  /** The last sample's time, ms. */
  last: number;
}

/** A timeline as a merge source, its arrays as they are. */
export function timelineSource(tl: Timeline): TimelineSource {
  const n = tl.times.length;
  return {
    length: n,
    nodes: tl.nodes,
    times: tl.times,
    firstUs: 0,
    last: n ? tl.times[n - 1] : 0,
    ...(tl.weights ? { weights: tl.weights } : {}),
  };
}

/**
 * A timeline packed (see TimelineSource), or its arrays as they are when its times are not whole µs in order. Each
 * time is exactly `µs / 1000` again when read (`sourceTime`), as the .cpuprofile reader made it from its whole µs.
 */
export function packTimeline(tl: Timeline, nodeCount: number): TimelineSource {
  const n = tl.times.length;
  const times = tl.times;
  const noted = notedSteps.get(times);
  if (noted && noted.length === n)
    return {
      length: n,
      nodes: nodeCount <= 0x10000 ? new Uint16Array(tl.nodes) : tl.nodes,
      steps: noted,
      firstUs: n ? Math.round(times[0] * 1000) : 0,
      last: n ? times[n - 1] : 0,
      ...(tl.weights ? { weights: tl.weights } : {}),
    };
  // Two bytes a step first (a sampling profiler's steps are well under 65 ms): written as they are checked, no wider
  // array to narrow after; four when one is longer, checked again from the start.
  let steps: Uint16Array | Uint32Array = new Uint16Array(n);
  let wide = false;
  // The µs of the sample before; a block at a time through a small function (see placeSamples).
  const state = new Float64Array(1);
  for (let from = 0; from < n; from += BLOCK) {
    const to = Math.min(n, from + BLOCK);
    const r = wide ? packSteps(times, steps, from, to, state, 0xffffffff) : packSteps(times, steps, from, to, state, 0xffff);
    if (r === NOT_US) return timelineSource(tl);
    if (r === WIDER) {
      steps = new Uint32Array(n);
      wide = true;
      state[0] = 0;
      from = -BLOCK;
    }
  }
  return {
    length: n,
    nodes: nodeCount <= 0x10000 ? new Uint16Array(tl.nodes) : tl.nodes,
    steps,
    firstUs: n ? Math.round(times[0] * 1000) : 0,
    last: n ? times[n - 1] : 0,
    ...(tl.weights ? { weights: tl.weights } : {}),
  };
}

/** Steps a reader found as it made the times (see noteSteps), by the times they are of. */
const notedSteps = new WeakMap<Float64Array, Uint16Array>();

/**
 * A reader that made `times` from whole µs (`µs / 1000`, each at most 65,535 µs after the one before and all below
 * 2 ** 50) notes the steps between them, as packTimeline would find them: it takes them then, and spares a pass of
 * rounding and checking over every sample. Kept by the times array itself: a timeline given new times is packed as ever.
 */
export function noteSteps(times: Float64Array, steps: Uint16Array): void {
  notedSteps.set(times, steps);
}

const BLOCK = 1 << 16;
const DONE = 0;
const NOT_US = 1;
const WIDER = 2;

/**
 * Steps `from` to `to` into `steps` (each at most `max`): NOT_US when a time is not a whole µs after the one before,
 * WIDER when a step is past `max`.
 */
function packSteps(
  times: Float64Array,
  steps: Uint16Array | Uint32Array,
  from: number,
  to: number,
  state: Float64Array,
  max: number,
): number {
  let prev = state[0];
  for (let i = from; i < to; i++) {
    const t = times[i];
    const us = Math.round(t * 1000);
    const d = us - prev;
    if (us / 1000 !== t || d < 0 || (i > 0 && d > 0xffffffff) || !(us <= Number.MAX_SAFE_INTEGER)) return NOT_US;
    if (i > 0) {
      if (d > max) return WIDER;
      steps[i] = d;
    }
    prev = us;
  }
  state[0] = prev;
  return DONE;
}
