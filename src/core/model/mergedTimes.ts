import type { Profile } from './profile';

type Timeline = NonNullable<Profile['timeline']>;

/**
 * A merged run's sample times held narrow. A sample's time is `µs / 1000 + ms`: its whole µs on its own process's axis
 * (`µs`, as its reader made the time of it) and the ms its process is shifted by on the run's axis (`ms`), the very sum
 * the merge made the time of, so it is the same number to the last bit. Each µs is held as four bytes (a time is eight)
 * past a base its block of samples shares, shifted by its process's offset in whole µs (`usOfNode`), so the samples of
 * a block, of every process, are all close on the run's axis. Each process's offsets are found by the sample's node
 * (every node of a merged tree is in one process's level). 35 M samples of 20 processes: 142 MB where the times would
 * be 285 MB.
 */
export interface PackedTimes {
  /** A sample's µs on the run's axis (its µs + `usOfNode`), past its block's base. */
  us: Uint32Array;
  /** Each block's base µs (a block: 2 ** PACKED_BLOCK_BITS samples). */
  blockUs: Float64Array;
  /** Each node's process's offset on the run's axis, in whole µs. */
  usOfNode: Float64Array;
  /** Each node's process's offset on the run's axis, ms, as the merge added it. */
  msOfNode: Float64Array;
  /**
   * The µs on the run's axis of the samples too far from their block's base (held as WIDE_US in `us`): a block across
   * a gap of over 71 minutes (processes started hours apart).
   */
  wide: Map<number, number>;
}

/** log2 of the samples a block's base covers. */
export const PACKED_BLOCK_BITS = 12;

/** A block's base is this before its first sample, which a later sample may precede by the rounding of its offset. */
export const PACKED_BASE_BELOW = 1000;

/** The largest µs past its base a sample holds in `us`: 71 minutes. */
export const MAX_PACKED_US = 0xfffffffe;

/** In `us`: the sample's µs are in `wide`. */
export const WIDE_US = 0xffffffff;

/** A sample's time (ms) from the packed times. */
export function packedTimeAt(p: PackedTimes, nodes: ArrayLike<number>, i: number): number {
  const node = nodes[i];
  const d = p.us[i];
  const us = d === WIDE_US ? wideUs(p.wide, i) : p.blockUs[i >>> PACKED_BLOCK_BITS] + d;
  return (us - p.usOfNode[node]) / 1000 + p.msOfNode[node];
}

/**
 * A timeline whose `times` are unpacked the first time they are read (and kept then), so the model's shape stays: the
 * readers of a big run's report (waiting.ts's spans, the findings' gaps, its span) read `packed` while it is there.
 * `packed` is not enumerable: a copy of the timeline (`{ ...tl, nodes }`, a worker's message) has plain times, so a
 * cut or a renumbering never keeps times found by the nodes it had before. Once unpacked, `packed` is gone, so a
 * reader that writes the times in place is read as it wrote them.
 */
export function packedTimeline(nodes: Uint32Array, packed: PackedTimes, weights?: Float64Array): Timeline {
  let times: Float64Array | undefined;
  // Unpacked a slice at a time (`unpackSome`), up to `filled`; the first read of `times` unpacks the rest.
  let partial: Float64Array | undefined;
  let filled = 0;
  const some = (max: number): boolean => {
    if (times) return true;
    partial ??= new Float64Array(packed.us.length);
    const end = Math.min(partial.length, filled + max);
    for (let i = filled; i < end; i++) partial[i] = packedTimeAt(packed, nodes, i);
    filled = end;
    if (filled < partial.length) return false;
    times = partial;
    partial = undefined;
    // Set to undefined, not deleted: a delete turns the object into a dictionary, and every `tl.nodes` of a loop over
    // its samples into a hash lookup.
    (tl as Timeline).packed = undefined;
    return true;
  };
  const tl = {
    nodes,
    get times(): Float64Array {
      if (!times) some(Infinity);
      return times!;
    },
    ...(weights ? { weights } : {}),
  } as Timeline;
  Object.defineProperty(tl, 'packed', { value: packed, enumerable: false, configurable: true, writable: true });
  Object.defineProperty(tl, UNPACK_SOME, { value: some, enumerable: false });
  return tl;
}

const UNPACK_SOME = Symbol('unpackSome');

/**
 * Unpacks up to `max` more of a packed timeline's times (the editor does it between messages once a big profile is
 * shown, so its first Timeline answer does not unpack 19 M times: 200–570 ms of a 222 MB profile's first answer);
 * true once all are (or the timeline was never packed).
 */
export function unpackSome(tl: Timeline, max: number): boolean {
  const some = (tl as { [UNPACK_SOME]?: (max: number) => boolean })[UNPACK_SOME];
  return some ? some(max) : true;
}

/** A wide sample's µs (a function of its own: a Map read in a loop over tens of millions of samples slows all of it). */
export function wideUs(wide: Map<number, number>, i: number): number {
  return wide.get(i)!;
}

/** Sample `i`'s time (ms), packed or not, without unpacking the others. */
export function sampleTime(tl: Timeline, i: number): number {
  return tl.packed ? packedTimeAt(tl.packed, tl.nodes, i) : tl.times[i];
}

/** How many samples the timeline has, without unpacking its times. */
export function sampleCount(tl: Timeline): number {
  return (tl.packed ? tl.nodes : tl.times).length;
}

/** The last sample's time (ms), without unpacking the others; undefined without samples. */
export function lastTime(tl: Timeline): number | undefined {
  if (!tl.packed) return tl.times.length ? tl.times[tl.times.length - 1] : undefined;
  const n = tl.nodes.length;
  return n ? packedTimeAt(tl.packed, tl.nodes, n - 1) : undefined;
}
