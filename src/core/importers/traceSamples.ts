// A trace profile's samples and their times (the deltas' running sums), added a chunk at a time in one loop: a
// NumberList push per sample and per delta, on two lists of different kinds, was a tenth of a 30 MB trace's CPU.
import { MAX_DELTA } from './numberList';
import type { LineCounts } from './traceLines';

/** Node ids as int32 while they fit (float64 from the first that does not), times as float64: as NumberList keeps them. */
export class TraceSamples {
  private ids: Int32Array | Float64Array;
  private sums: Float64Array;
  private total = 0;
  length = 0;

  /**
   * `capacity`: a guess from the file's size. A large typed array's pages are only committed when written, so room
   * never filled costs address space, not memory; growing by copying (a million samples) faulted in twice the pages.
   */
  constructor(capacity = 0) {
    const n = Math.max(1024, Math.min(capacity, 1 << 28));
    try {
      this.ids = new Int32Array(n);
      this.sums = new Float64Array(n);
    } catch {
      // A system that commits memory as it is reserved (no overcommit) may refuse that much: grow as needed instead.
      this.ids = new Int32Array(1024);
      this.sums = new Float64Array(1024);
    }
  }

  /**
   * One chunk's samples, deltas and lines (typed arrays as walked, arrays when the event came another way). A sample
   * that names no node counts as unaccounted (-1, as the .cpuprofile reader takes it); a missing delta adds 0.
   */
  add(samples: ArrayLike<unknown>, deltas: ArrayLike<unknown>, lines: ArrayLike<unknown>, counts: LineCounts): void {
    const m = samples.length;
    if (this.length + m > this.sums.length) this.grow(this.length + m);
    let ids = this.ids;
    const sums = this.sums;
    let len = this.length;
    let total = this.total;
    for (let i = 0; i < m; i++) {
      const s = samples[i];
      const ok = typeof s === 'number' && Number.isSafeInteger(s);
      const id = ok ? s : -1;
      if ((id | 0) !== id && ids instanceof Int32Array) ids = this.widen(len);
      ids[len] = id;
      const d = deltas[i];
      const v = typeof d === 'number' && Number.isFinite(d) ? d : 0;
      if (v > 0 && v < MAX_DELTA) total += v;
      sums[len++] = total;
      const line = lines[i];
      if (ok && typeof line === 'number' && Number.isInteger(line) && line > 0) counts.add(s, line);
    }
    this.length = len;
    this.total = total;
  }

  private grow(need: number): void {
    const size = Math.max(need, 2 * this.sums.length);
    const ids = this.ids instanceof Int32Array ? new Int32Array(size) : new Float64Array(size);
    ids.set(this.ids.subarray(0, this.length));
    this.ids = ids;
    const sums = new Float64Array(size);
    sums.set(this.sums.subarray(0, this.length));
    this.sums = sums;
  }

  private widen(len: number): Float64Array {
    const ids = new Float64Array(this.sums.length);
    ids.set(this.ids.subarray(0, len));
    this.ids = ids;
    return ids;
  }

  /** The node id of each sample. */
  samples(): Int32Array | Float64Array {
    return this.ids.subarray(0, this.length);
  }

  /** Each sample's time, µs from the first delta's start. */
  times(): Float64Array {
    return this.sums.subarray(0, this.length);
  }
}
