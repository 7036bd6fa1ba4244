// The number arrays of a profile read by streaming (jsonScan.ts): samples, and time deltas as their running sums.

import { MAX_PACKED_US, PACKED_BLOCK_BITS, WIDE_US } from '../model/mergedTimes';

/**
 * Running sums held as a timeline's packed times are (mergedTimes.ts's PackedTimes, one process): whole µs past the
 * base of their block of samples, four bytes a sum where a Float64Array takes eight. Each sum reads back as
 * `blockUs[i >>> PACKED_BLOCK_BITS] + us[i]` (or `wide.get(i)` where `us[i]` is WIDE_US), exactly the sum.
 */
export interface PackedSums {
  us: Uint32Array;
  blockUs: Float64Array;
  wide: Map<number, number>;
}

const BLOCK_MASK = (1 << PACKED_BLOCK_BITS) - 1;

/** Numbers kept as int32 while they fit, as float64 from the first one that does not; or their running sums. */
export class NumberList {
  i32: Int32Array | undefined;
  f64: Float64Array | undefined;
  /** Packed sums (see PackedSums) until a sum is not a whole number of µs below 2 ** 53: then `f64` from there on. */
  u32: Uint32Array | undefined;
  blockUs: Float64Array | undefined;
  wide: Map<number, number> | undefined;
  private a: Int32Array | Float64Array;
  length = 0;
  total = 0;
  /** After `integerRun`: it stopped after a value, so a comma (or the end of the array) comes next. */
  comma = false;
  /**
   * `capacity` is an upper bound from the bytes left in the file: a large typed array's pages are only committed
   * when written, so the untouched tail costs address space, not memory, and no array is grown by copying.
   */
  constructor(
    capacity: number,
    readonly sums: boolean,
    lent?: LentArrays,
    packed = false,
  ) {
    const n = Math.max(1024, Math.min(capacity, 1 << 30));
    if (sums && packed) {
      try {
        this.u32 = new Uint32Array(n);
      } catch {
        this.u32 = new Uint32Array(1024);
      }
      this.blockUs = new Float64Array((this.u32.length >>> PACKED_BLOCK_BITS) + 1);
      this.wide = new Map();
      this.a = this.f64 = new Float64Array(0);
      return;
    }
    let a: Int32Array | Float64Array;
    try {
      const room = lent?.take(n * (sums ? 8 : 4));
      a = room ? (sums ? new Float64Array(room, 0, n) : new Int32Array(room, 0, n)) : sums ? new Float64Array(n) : new Int32Array(n);
    } catch {
      // A system that commits memory as it is reserved (no overcommit) may refuse that much: grow as needed instead.
      a = sums ? new Float64Array(1024) : new Int32Array(1024);
    }
    this.a = a;
    if (sums) this.f64 = a as Float64Array;
    else this.i32 = a as Int32Array;
  }
  push(v: number): void {
    if (this.u32) {
      if (v > 0 && v < MAX_DELTA) this.total += v;
      if (this.packOne(this.total)) return;
      this.unpack(this.total);
      return;
    }
    if (this.length === this.a.length) {
      const b = new (this.a.constructor as Int32ArrayConstructor | Float64ArrayConstructor)(this.a.length * 2);
      b.set(this.a);
      this.a = b;
      if (this.i32) this.i32 = b as Int32Array;
      if (this.f64) this.f64 = b as Float64Array;
    }
    if (this.sums) {
      if (v > 0 && v < MAX_DELTA) this.total += v;
      this.a[this.length++] = this.total;
      return;
    }
    if (this.i32 && (v | 0) !== v) {
      const b = new Float64Array(Math.max(this.length * 2, 1024));
      b.set(this.a.subarray(0, this.length));
      this.a = b;
      this.i32 = undefined;
    }
    this.a[this.length++] = v;
  }
  /** Adds `sum` to the packed sums; false when it cannot be held packed. */
  private packOne(sum: number): boolean {
    if (sum !== Math.floor(sum) || !(sum <= Number.MAX_SAFE_INTEGER)) return false;
    let us = this.u32!;
    const i = this.length;
    if (i === us.length) {
      const b = new Uint32Array(us.length * 2);
      b.set(us);
      this.u32 = us = b;
      const blocks = new Float64Array((b.length >>> PACKED_BLOCK_BITS) + 1);
      blocks.set(this.blockUs!);
      this.blockUs = blocks;
    }
    const k = i >>> PACKED_BLOCK_BITS;
    if ((i & BLOCK_MASK) === 0) this.blockUs![k] = sum;
    const d = sum - this.blockUs![k];
    if (d <= MAX_PACKED_US) us[i] = d;
    else {
      us[i] = WIDE_US;
      this.wide!.set(i, sum);
    }
    this.length = i + 1;
    return true;
  }

  /** The sums so far as a Float64Array, then `last`: a delta that is no whole µs (or sums past 2 ** 53) ends packing. */
  private unpack(last: number): void {
    const us = this.u32!;
    let a: Float64Array;
    try {
      a = new Float64Array(Math.max(us.length, this.length + 1));
    } catch {
      a = new Float64Array(Math.max(1024, (this.length + 1) * 2));
    }
    const packed = this.packedSums();
    for (let i = 0; i < this.length; i++) a[i] = packedSumAt(packed, i);
    a[this.length++] = last;
    this.a = this.f64 = a;
    this.u32 = this.blockUs = this.wide = undefined;
  }

  private packedSums(): PackedSums {
    return { us: this.u32!, blockUs: this.blockUs!, wide: this.wide! };
  }

  /** Empties the list to be filled again (a sink's list, taken by one element after another), int32 again. */
  reset(): this {
    this.length = 0;
    this.total = 0;
    if (!this.sums && !this.i32) this.a = this.i32 = new Int32Array(1024);
    return this;
  }
  done(): Int32Array | Float64Array {
    if (this.u32) return unpackSums(this.stored() as PackedSums);
    return this.a.subarray(0, this.length);
  }
  /** The list as the scanner stores it: packed sums as they are. */
  stored(): Int32Array | Float64Array | PackedSums {
    if (!this.u32) return this.done();
    const n = this.length;
    return { us: this.u32.subarray(0, n), blockUs: this.blockUs!.subarray(0, (n + BLOCK_MASK) >>> PACKED_BLOCK_BITS), wide: this.wide! };
  }
}

/** Sum `i` of packed sums. */
export function packedSumAt(p: PackedSums, i: number): number {
  const d = p.us[i];
  return d === WIDE_US ? p.wide.get(i)! : p.blockUs[i >>> PACKED_BLOCK_BITS] + d;
}

/** Packed sums as a Float64Array (the reader's general path). */
export function unpackSums(p: PackedSums): Float64Array {
  const out = new Float64Array(p.us.length);
  for (let i = 0; i < out.length; i++) out[i] = packedSumAt(p, i);
  return out;
}

/**
 * Memory a caller lends for the big number lists and takes back when their reader is done with them (see ReusedArrays):
 * a run's processes, read one after another, fill the same pages again instead of new ones each (fresh pages cost a
 * fault each, and every new big array brings the garbage collector round early).
 */
export interface LentArrays {
  /** A buffer of at least `bytes`, or undefined. Its old contents are there: a list writes before it reads. */
  take(bytes: number): ArrayBuffer | undefined;
}

/** Buffers given back after use, lent again to the next list they fit. */
export class ReusedArrays implements LentArrays {
  private free: ArrayBuffer[] = [];
  take(bytes: number): ArrayBuffer | undefined {
    const k = this.free.findIndex((b) => b.byteLength >= bytes);
    return k < 0 ? undefined : this.free.splice(k, 1)[0];
  }
  /** `b` is no longer read by anyone. */
  give(b: ArrayBufferLike): void {
    if (b instanceof ArrayBuffer && !this.free.includes(b)) this.free.push(b);
  }
}

/** A delta past this (~11 days in µs) is damage, and sums of such would reach Infinity: it adds nothing. */
export const MAX_DELTA = 1e12;

/**
 * The plain integers of a number array from `b[i]` on, read into `out` in one tight loop: the bulk of a profile.
 * It stops before anything else (a number the chunk cuts, a sign, a fraction, white space, ten digits or more, a
 * leading zero) for the general path. `comma`: a value was read last. Returns the index reached; `out.comma` says
 * whether a value was read last there.
 */
export function integerRun(out: NumberList, b: Buffer, i: number, comma: boolean): number {
  const ints = out.i32;
  const sums = out.sums ? out.f64 : undefined;
  out.comma = comma;
  if (out.u32) return runPacked(out, out.u32, out.blockUs!, b, i, comma);
  if (ints) return run(out, ints, undefined, b, i, comma);
  return sums ? run(out, undefined, sums, b, i, comma) : i;
}

// One loop for both kinds of list; `ints` or `sums` is set, the same one on every call from one list, so each call
// site's loads stay of one kind.
function run(out: NumberList, ints: Int32Array | undefined, sums: Float64Array | undefined, b: Buffer, i: number, comma: boolean): number {
  const n = b.length;
  const cap = (ints ?? sums)!.length;
  let len = out.length;
  let total = out.total;
  for (;;) {
    if (comma) {
      if (i >= n || b[i] !== 0x2c) break;
      comma = false;
      i++;
    }
    if (i >= n || len === cap) break;
    let c = b[i];
    if (c < 0x30 || c > 0x39) break;
    let j = i + 1;
    let v = c - 0x30;
    while (j < n && (c = b[j]) >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      j++;
    }
    if (j === n || j - i > 9 || (b[i] === 0x30 && j > i + 1) || (c !== 0x2c && c !== 0x5d)) break;
    // Nine digits are below MAX_DELTA: only a zero adds nothing.
    if (ints) ints[len++] = v;
    else sums![len++] = total += v;
    if (c === 0x5d) {
      comma = true;
      i = j;
      break;
    }
    i = j + 1;
  }
  out.length = len;
  out.total = total;
  out.comma = comma;
  return i;
}

/**
 * `run` for packed sums (a loop of its own: the other two keep their loads of one kind). It stops before a sum that is
 * not held in `us` as it is (past 2 ** 53, or too far from its block's base): the general path adds that one.
 */
function runPacked(out: NumberList, us: Uint32Array, blockUs: Float64Array, b: Buffer, i: number, comma: boolean): number {
  const n = b.length;
  const cap = us.length;
  let len = out.length;
  let total = out.total;
  let base = len & BLOCK_MASK ? blockUs[len >>> PACKED_BLOCK_BITS] : 0;
  for (;;) {
    if (comma) {
      if (i >= n || b[i] !== 0x2c) break;
      comma = false;
      i++;
    }
    if (i >= n || len === cap) break;
    let c = b[i];
    if (c < 0x30 || c > 0x39) break;
    let j = i + 1;
    let v = c - 0x30;
    while (j < n && (c = b[j]) >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      j++;
    }
    if (j === n || j - i > 9 || (b[i] === 0x30 && j > i + 1) || (c !== 0x2c && c !== 0x5d)) break;
    const sum = total + v;
    if ((len & BLOCK_MASK) === 0) blockUs[len >>> PACKED_BLOCK_BITS] = base = sum;
    const d = sum - base;
    if (d > MAX_PACKED_US || sum > Number.MAX_SAFE_INTEGER) break;
    us[len++] = d;
    total = sum;
    if (c === 0x5d) {
      comma = true;
      i = j;
      break;
    }
    i = j + 1;
  }
  out.length = len;
  out.total = total;
  out.comma = comma;
  return i;
}

/** The value of the integer plainInt read last. */
export const plain = { value: 0 };

/**
 * A plain JSON integer at `j` (`-`, then 1 to 15 digits, no leading zero) followed by a delimiter (white space, `,`,
 * `]`, `}`), into `plain.value`: the index past it, or -1. Such a number is exactly what JSON.parse makes of it (-0
 * included).
 */
export function plainInt(b: Buffer, j: number, n: number): number {
  const neg = j < n && b[j] === 0x2d;
  if (neg) j++;
  const from = j;
  let v = 0;
  let c = 0;
  while (j < n && (c = b[j]) >= 0x30 && c <= 0x39) {
    v = v * 10 + (c - 0x30);
    j++;
  }
  if (j >= n || j === from || j - from > 15 || (b[from] === 0x30 && j > from + 1)) return -1;
  if (c !== 0x2c && c !== 0x7d && c !== 0x5d && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return -1;
  plain.value = neg ? -v : v;
  return j;
}
