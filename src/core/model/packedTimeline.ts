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
  firstUs: number;
  /** Set when the times are not whole µs in order (steps are then undefined). */
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
  const steps = new Uint32Array(n);
  // The µs of the sample before, and the longest step; a block at a time through a small function (see placeSamples).
  const state = new Float64Array(2);
  for (let from = 0; from < n; from += BLOCK)
    if (!packSteps(times, steps, from, Math.min(n, from + BLOCK), state)) return timelineSource(tl);
  return {
    length: n,
    nodes: nodeCount <= 0x10000 ? new Uint16Array(tl.nodes) : tl.nodes,
    steps: state[1] <= 0xffff ? new Uint16Array(steps) : steps,
    firstUs: n ? Math.round(times[0] * 1000) : 0,
    last: n ? times[n - 1] : 0,
    ...(tl.weights ? { weights: tl.weights } : {}),
  };
}

const BLOCK = 1 << 16;

/** Steps `from` to `to` into `steps`; false when a time is not a whole µs after the one before, or too far after it. */
function packSteps(times: Float64Array, steps: Uint32Array, from: number, to: number, state: Float64Array): boolean {
  let prev = state[0];
  let max = state[1];
  for (let i = from; i < to; i++) {
    const t = times[i];
    const us = Math.round(t * 1000);
    const d = us - prev;
    if (us / 1000 !== t || d < 0 || (i > 0 && d > 0xffffffff) || !(us <= Number.MAX_SAFE_INTEGER)) return false;
    if (i > 0) {
      steps[i] = d;
      if (d > max) max = d;
    }
    prev = us;
  }
  state[0] = prev;
  state[1] = max;
  return true;
}
