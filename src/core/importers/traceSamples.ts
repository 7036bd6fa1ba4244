// A trace profile's samples and their times (the deltas' running sums), added a chunk at a time in one loop: a
// NumberList push per sample and per delta, on two lists of different kinds, was a tenth of a 30 MB trace's CPU. The
// sums are held packed (PackedSums: four bytes a sample, where a Float64Array took eight) while they are whole µs,
// which V8's always are: a 120 MB trace's peak memory was 1.8 times the file, its times twice over (its own, merged).
import { MAX_PACKED_US, PACKED_BLOCK_BITS, WIDE_US } from '../model/mergedTimes';
import { MAX_DELTA, packedSumAt, type PackedSums } from './numberList';
import type { LineCounts } from './traceLines';

const BLOCK_MASK = (1 << PACKED_BLOCK_BITS) - 1;

/** Node ids as int32 while they fit (float64 from the first that does not); times packed while they can be. */
export class TraceSamples {
  private ids: Int32Array | Float64Array;
  /** Packed sums (see PackedSums) until a sum is no whole µs below 2 ** 53: `sums` from there on. */
  private us: Uint32Array | undefined;
  private blockUs: Float64Array;
  private readonly wide = new Map<number, number>();
  private sums: Float64Array | undefined;
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
      this.us = new Uint32Array(n);
    } catch {
      // A system that commits memory as it is reserved (no overcommit) may refuse that much: grow as needed instead.
      this.ids = new Int32Array(1024);
      this.us = new Uint32Array(1024);
    }
    this.blockUs = new Float64Array((this.ids.length >>> PACKED_BLOCK_BITS) + 1);
  }

  /**
   * One chunk's samples, deltas and lines (typed arrays as walked, arrays when the event came another way). A sample
   * that names no node counts as unaccounted (-1, as the .cpuprofile reader takes it); a missing delta adds 0.
   */
  add(samples: ArrayLike<unknown>, deltas: ArrayLike<unknown>, lines: ArrayLike<unknown>, counts: LineCounts): void {
    const m = samples.length;
    if (this.length + m > this.ids.length) this.grow(this.length + m);
    let from = 0;
    // V8's chunks as the scanner reads them: int32 ids, deltas and lines, one each a sample.
    if (
      this.us &&
      this.ids instanceof Int32Array &&
      samples instanceof Int32Array &&
      deltas instanceof Int32Array &&
      deltas.length >= m &&
      lines instanceof Int32Array &&
      (lines.length >= m || lines.length === 0)
    )
      from = this.addInts(this.ids, this.us, this.blockUs, samples, deltas, lines, counts);
    if (from < m) this.addAny(samples, deltas, lines, counts, from);
  }

  /** `add` for int32 arrays, up to a sum packing cannot hold as it is: the index reached. */
  private addInts(
    ids: Int32Array,
    us: Uint32Array,
    blockUs: Float64Array,
    samples: Int32Array,
    deltas: Int32Array,
    lines: Int32Array,
    counts: LineCounts,
  ): number {
    const m = samples.length;
    const withLines = lines.length > 0;
    let len = this.length;
    let total = this.total;
    let base = len & BLOCK_MASK ? blockUs[len >>> PACKED_BLOCK_BITS] : 0;
    let i = 0;
    for (; i < m; i++) {
      const d = deltas[i];
      const sum = d > 0 ? total + d : total;
      if ((len & BLOCK_MASK) === 0) blockUs[len >>> PACKED_BLOCK_BITS] = base = sum;
      const off = sum - base;
      if (off > MAX_PACKED_US || sum > Number.MAX_SAFE_INTEGER) break;
      us[len] = off;
      const s = samples[i];
      ids[len++] = s;
      total = sum;
      if (withLines) {
        const line = lines[i];
        if (line > 0) counts.add(s, line);
      }
    }
    this.length = len;
    this.total = total;
    return i;
  }

  /** Any samples from `from` on, one by one. */
  private addAny(
    samples: ArrayLike<unknown>,
    deltas: ArrayLike<unknown>,
    lines: ArrayLike<unknown>,
    counts: LineCounts,
    from: number,
  ): void {
    const m = samples.length;
    for (let i = from; i < m; i++) {
      const s = samples[i];
      const ok = typeof s === 'number' && Number.isSafeInteger(s);
      const id = ok ? s : -1;
      if ((id | 0) !== id && this.ids instanceof Int32Array) this.widen();
      this.ids[this.length] = id;
      const d = deltas[i];
      const v = typeof d === 'number' && Number.isFinite(d) ? d : 0;
      if (v > 0 && v < MAX_DELTA) this.total += v;
      this.pushSum(this.total);
      const line = lines[i];
      if (ok && typeof line === 'number' && Number.isInteger(line) && line > 0) counts.add(s, line);
    }
  }

  /** Adds a sample's sum, packed while it can be. */
  private pushSum(sum: number): void {
    const i = this.length++;
    if (!this.us) {
      this.sums![i] = sum;
      return;
    }
    if (sum !== Math.floor(sum) || !(sum <= Number.MAX_SAFE_INTEGER)) {
      this.unpack();
      this.sums![i] = sum;
      return;
    }
    const k = i >>> PACKED_BLOCK_BITS;
    if ((i & BLOCK_MASK) === 0) this.blockUs[k] = sum;
    const d = sum - this.blockUs[k];
    if (d <= MAX_PACKED_US) this.us[i] = d;
    else {
      this.us[i] = WIDE_US;
      this.wide.set(i, sum);
    }
  }

  /** The sums so far (all but the one being added) as a Float64Array, which holds them from there on. */
  private unpack(): void {
    const sums = new Float64Array(this.ids.length);
    const packed = this.packed(this.length - 1);
    for (let i = 0; i < packed.us.length; i++) sums[i] = packedSumAt(packed, i);
    this.sums = sums;
    this.us = undefined;
  }

  private packed(n: number): PackedSums {
    return { us: this.us!.subarray(0, n), blockUs: this.blockUs.subarray(0, (n + BLOCK_MASK) >>> PACKED_BLOCK_BITS), wide: this.wide };
  }

  private grow(need: number): void {
    const size = Math.max(need, 2 * this.ids.length);
    const ids = this.ids instanceof Int32Array ? new Int32Array(size) : new Float64Array(size);
    ids.set(this.ids.subarray(0, this.length));
    this.ids = ids;
    if (this.us) {
      const us = new Uint32Array(size);
      us.set(this.us.subarray(0, this.length));
      this.us = us;
      const blocks = new Float64Array((size >>> PACKED_BLOCK_BITS) + 1);
      blocks.set(this.blockUs);
      this.blockUs = blocks;
    } else {
      const sums = new Float64Array(size);
      sums.set(this.sums!.subarray(0, this.length));
      this.sums = sums;
    }
  }

  private widen(): void {
    const ids = new Float64Array(this.ids.length);
    ids.set(this.ids.subarray(0, this.length));
    this.ids = ids;
  }

  /** The node id of each sample. */
  samples(): Int32Array | Float64Array {
    return this.ids.subarray(0, this.length);
  }

  /** Each sample's time, µs from the first delta's start: packed while they are whole µs. */
  times(): Float64Array | PackedSums {
    return this.us ? this.packed(this.length) : this.sums!.subarray(0, this.length);
  }
}
