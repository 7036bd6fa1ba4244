import { CATEGORIES } from './frame';
import type { Profile } from './profile';

type Samples = { nodes: ArrayLike<number>; times: ArrayLike<number> };

/** Samples between two checkpoints: each count looked up scans at most this many. */
const STRIDE = 256;
const K = CATEGORIES.length;
const UNACCOUNTED = CATEGORIES.indexOf('unaccounted');

/**
 * Running counts of samples per category (the leaf frame's) at every STRIDE-th sample of a timeline, so the
 * samples per category in any index range cost two lookups and at most 2 × STRIDE reads. A Timeline answer cuts the
 * span into buckets found by binary search: a few thousand lookups, where a pass over the samples reads tens of
 * millions (a big profile's every answer took a pass; the index costs one, made once, in steps the host can spread).
 */
export class ActivityIndex {
  private readonly cum: Uint32Array;
  private readonly catOf: Uint8Array;
  /** Samples counted so far (the index is usable when it reaches the timeline's length). */
  private built = 0;
  private readonly running = new Uint32Array(K);

  constructor(
    private readonly samples: Samples,
    catOf: Uint8Array,
  ) {
    this.catOf = catOf;
    this.cum = new Uint32Array((Math.floor(samples.nodes.length / STRIDE) + 1) * K);
  }

  get done(): boolean {
    return this.built >= this.samples.nodes.length;
  }

  /** Counts up to `max` more samples; true when the whole timeline is counted. */
  step(max = Infinity): boolean {
    const { nodes } = this.samples;
    const end = Math.min(nodes.length, this.built + max);
    const { catOf, cum, running } = this;
    for (let i = this.built; i < end; i++) {
      if (i % STRIDE === 0) cum.set(running, (i / STRIDE) * K);
      const node = nodes[i];
      running[node < catOf.length ? catOf[node] : UNACCOUNTED]++;
    }
    if (end === nodes.length && end % STRIDE === 0) cum.set(running, (end / STRIDE) * K);
    this.built = end;
    return this.done;
  }

  /** Writes into `out` the samples per category before index `i`. */
  private before(i: number, out: Float64Array): void {
    const { nodes } = this.samples;
    const { catOf, cum } = this;
    const block = Math.floor(i / STRIDE);
    for (let c = 0; c < K; c++) out[c] = cum[block * K + c];
    for (let j = block * STRIDE; j < i; j++) {
      const node = nodes[j];
      out[node < catOf.length ? catOf[node] : UNACCOUNTED]++;
    }
  }

  /**
   * Per bucket and category, the samples in [from, to) cut into n buckets of `width`, laid out as `activity`'s
   * flat counts. A sample's bucket is the one its time falls in (the last bucket keeps what rounding puts past it).
   */
  counts(from: number, to: number, n: number, width: number): { counts: Float64Array; samples: number } {
    if (!this.done) this.step();
    const { times } = this.samples;
    const counts = new Float64Array(n * K);
    const start = lowerBound(times, from, 0, times.length);
    const end = lowerBound(times, to, start, times.length);
    let prev = new Float64Array(K);
    let cur = new Float64Array(K);
    this.before(start, prev);
    // The first sample at or after each bucket's start, by the bucket rule itself (not a boundary time), so rounding
    // puts each sample where a pass over them would.
    let lo = start;
    for (let b = 0; b < n && lo < end; b++) {
      const next = b === n - 1 ? end : firstInBucket(times, from, width, b + 1, lo, end);
      if (next === lo) continue;
      this.before(next, cur);
      for (let c = 0; c < K; c++) counts[b * K + c] = cur[c] - prev[c];
      [prev, cur] = [cur, prev];
      lo = next;
    }
    return { counts, samples: Math.max(0, end - start) };
  }
}

function lowerBound(times: ArrayLike<number>, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in [lo, hi) whose sample's bucket is ≥ b (hi when none). */
function firstInBucket(times: ArrayLike<number>, from: number, width: number, b: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (Math.floor((times[mid] - from) / width) < b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per tree node: the index in CATEGORIES of its frame's category (the root: unaccounted). */
export function leafCategories(profile: Profile): Uint8Array {
  const t = profile.tree;
  const out = new Uint8Array(t.count);
  const index = new Map(CATEGORIES.map((c, i) => [c, i]));
  for (let i = 0; i < t.count; i++) {
    const f = t.frame[i];
    out[i] = f >= 0 && profile.frames[f] ? (index.get(profile.frames[f].category) ?? UNACCOUNTED) : UNACCOUNTED;
  }
  return out;
}

const indexes = new WeakMap<object, ActivityIndex>();

/** The index of one timeline of a profile (its own, or a thread's lane), made on first use, counted as far as asked. */
export function activityIndexOf(profile: Profile, samples: Samples): ActivityIndex {
  let ix = indexes.get(samples);
  if (!ix) indexes.set(samples, (ix = new ActivityIndex(samples, leafCategories(profile))));
  return ix;
}
