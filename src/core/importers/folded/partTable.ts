import { doubled } from '../../doubled';

/** Returned by `PartTable.find` for bytes never added. */
export const MISSING = -2;

/** FNV-1a step: the reader hashes a part's bytes while it looks for the `;` that ends it. */
export const HASH_SEED = 0x811c9dc5 | 0;
export const hashStep = (h: number, byte: number): number => Math.imul(h ^ byte, 0x01000193);

/**
 * Frame ids by the bytes of a folded part. A big profile repeats each part thousands of times;
 * looking it up by its bytes spares a string (and its hash) per part.
 */
export class PartTable {
  private pool = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  private count = 0;
  /** Per entry: pool offset, length, hash, value, side by side so a probe touches one cache line. */
  private entries = new Int32Array(4 * 1024);
  /** Entry index + 1 (0 is empty), at most half full. */
  private slots = new Int32Array(2048);

  /** The value stored for `buf[start, end)` whose hash is `h`, or MISSING. */
  find(buf: Buffer, start: number, end: number, h: number): number {
    const mask = this.slots.length - 1;
    const n = end - start;
    const entries = this.entries;
    for (let i = mix(h) & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i];
      if (s === 0) return MISSING;
      const e = 4 * (s - 1);
      if (entries[e + 2] === h && entries[e + 1] === n && this.same(entries[e], buf, start, n)) return entries[e + 3];
    }
  }

  add(buf: Buffer, start: number, end: number, h: number, value: number): void {
    const n = end - start;
    if (4 * this.count === this.entries.length) this.entries = doubled(this.entries);
    while (this.used + n > this.pool.length) {
      const pool = Buffer.allocUnsafe(this.pool.length * 2);
      this.pool.copy(pool, 0, 0, this.used);
      this.pool = pool;
    }
    // Parts are short: a loop beats Buffer#copy's per-call cost.
    for (let k = 0; k < n; k++) this.pool[this.used + k] = buf[start + k];
    const e = this.count++;
    const at = 4 * e;
    this.entries[at] = this.used;
    this.entries[at + 1] = n;
    this.entries[at + 2] = h;
    this.entries[at + 3] = value;
    this.used += n;
    if (2 * this.count > this.slots.length) this.rehash();
    else this.place(e);
  }

  private same(o: number, buf: Buffer, start: number, n: number): boolean {
    const pool = this.pool;
    for (let k = 0; k < n; k++) if (pool[o + k] !== buf[start + k]) return false;
    return true;
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let i = mix(this.entries[4 * e + 2]) & mask;
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = e + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let e = 0; e < this.count; e++) this.place(e);
  }
}

/** FNV's low bits are weak for short keys: spread them before masking. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
