import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Where a table's names are kept until asked for: a profile hits a few hundred of node's ~100k
 * symbols, and 100k JS strings cost more memory than the whole rest of a large import.
 */
export interface NameStore {
  read(i: number): string;
}

/** Names as UTF-8 bytes back to back; name i is bytes[offsets[i], offsets[i + 1]). */
export class PackedNames implements NameStore {
  constructor(
    readonly bytes: Buffer,
    readonly offsets: Uint32Array,
  ) {}

  read(i: number): string {
    return this.bytes.toString('utf8', this.offsets[i], this.offsets[i + 1]);
  }

  static pack(names: readonly string[]): PackedNames {
    const offsets = new Uint32Array(names.length + 1);
    let total = 0;
    for (let i = 0; i < names.length; i++) {
      offsets[i] = total;
      total += Buffer.byteLength(names[i], 'utf8');
    }
    offsets[names.length] = total;
    const bytes = Buffer.allocUnsafe(total);
    for (let i = 0; i < names.length; i++) bytes.write(names[i], offsets[i], 'utf8');
    return new PackedNames(bytes, offsets);
  }
}

/** Bytes of the names read from the cache file at a time. */
const NAME_BLOCK = 64 << 10;

/**
 * Names left in the symbol cache file, read when a sample lands in that symbol: by blocks of the file, kept, as the
 * symbols a log hits cluster (tsc's log: ~430 names, each an open, a read and a close of its own before).
 */
export class FileNames implements NameStore {
  private readonly blocks = new Map<number, Buffer>();

  constructor(
    private readonly path: string,
    /** File offset of the first name byte. */
    private readonly base: number,
    private readonly offsets: Uint32Array,
  ) {}

  read(i: number): string {
    const len = this.offsets[i + 1] - this.offsets[i];
    if (!(len >= 0)) return '';
    const at = this.base + this.offsets[i];
    const k = Math.floor(at / NAME_BLOCK);
    // A name across two blocks is read by itself.
    if (Math.floor((at + len - 1) / NAME_BLOCK) !== k || len === 0) {
      const b = this.readAt(at, len);
      return b.length === len ? b.toString('utf8') : '';
    }
    let block = this.blocks.get(k);
    if (!block) this.blocks.set(k, (block = this.readAt(k * NAME_BLOCK, NAME_BLOCK)));
    const from = at - k * NAME_BLOCK;
    return from + len <= block.length ? block.toString('utf8', from, from + len) : '';
  }

  /** Up to `len` bytes at `at` (fewer at the end of the file; none when it is gone: the cache was cleaned while we ran). */
  private readAt(at: number, len: number): Buffer {
    const buf = Buffer.allocUnsafe(len);
    let fd = -1;
    try {
      fd = openSync(this.path, 'r');
      return buf.subarray(0, readSync(fd, buf, 0, len, at));
    } catch {
      return buf.subarray(0, 0);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
}

/** Function symbols of one binary, sorted by link-time address, searchable by address. */
export class SymbolTable {
  private readonly named = new Map<number, string>();

  constructor(
    readonly addrs: Float64Array,
    /** End address (exclusive); a symbol without size ends where the next one starts. */
    readonly ends: Float64Array,
    readonly store: NameStore,
  ) {}

  get size(): number {
    return this.addrs.length;
  }

  /** Name of symbol i ('' when it cannot be read any more). */
  name(i: number): string {
    let s = this.named.get(i);
    if (s === undefined) this.named.set(i, (s = this.store.read(i)));
    return s;
  }

  /** Index of the symbol covering `vaddr`, or -1. */
  find(vaddr: number): number {
    const a = this.addrs;
    let lo = 0;
    let hi = a.length - 1;
    if (hi < 0 || vaddr < a[0]) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= vaddr) lo = mid;
      else hi = mid - 1;
    }
    // Symbols may nest (aliases, local labels): walk back to one that actually covers the address.
    for (let i = lo; i >= 0 && i > lo - 8; i--) if (vaddr < this.ends[i]) return i;
    return -1;
  }

  static fromSorted(rows: { addr: number; size: number; name: string }[]): SymbolTable {
    const b = new SymbolTableBuilder();
    for (const r of rows) b.add(r.addr, r.size, r.name);
    return b.build();
  }
}

/** Collects symbols one by one into typed arrays and packed names (no object or string per symbol). */
export class SymbolTableBuilder {
  private addrs = new Float64Array(1024);
  private sizes = new Float64Array(1024);
  private offsets = new Uint32Array(1025);
  private bytes = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  private n = 0;

  add(addr: number, size: number, name: string): void {
    if (this.n === this.addrs.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T, len: number): T => {
        const b = new (a.constructor as new (n: number) => T)(len);
        b.set(a);
        return b;
      };
      this.addrs = grow(this.addrs, this.n * 2);
      this.sizes = grow(this.sizes, this.n * 2);
      this.offsets = grow(this.offsets, this.n * 2 + 1);
    }
    const len = Buffer.byteLength(name, 'utf8');
    if (this.used + len > this.bytes.length) {
      const b = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + len));
      this.bytes.copy(b, 0, 0, this.used);
      this.bytes = b;
    }
    this.bytes.write(name, this.used, 'utf8');
    this.addrs[this.n] = addr;
    this.sizes[this.n] = size;
    this.offsets[this.n] = this.used;
    this.used += len;
    this.n++;
  }

  build(): SymbolTable {
    const n = this.n;
    // `nm -n` lists by address already; anything else is put in order here.
    let order: Uint32Array | null = null;
    for (let i = 1; i < n; i++) {
      if (this.addrs[i] < this.addrs[i - 1]) {
        order = Uint32Array.from({ length: n }, (_, k) => k).sort((x, y) => this.addrs[x] - this.addrs[y] || x - y);
        break;
      }
    }
    const at = (i: number) => (order ? order[i] : i);
    let addrs = this.addrs.subarray(0, n);
    let offsets = this.offsets.subarray(0, n + 1);
    let bytes = this.bytes.subarray(0, this.used);
    offsets[n] = this.used;
    if (order) {
      addrs = new Float64Array(n);
      offsets = new Uint32Array(n + 1);
      bytes = Buffer.allocUnsafe(this.used);
      let used = 0;
      for (let i = 0; i < n; i++) {
        const k = order[i];
        addrs[i] = this.addrs[k];
        offsets[i] = used;
        used += this.bytes.copy(bytes, used, this.offsets[k], this.offsets[k + 1]);
      }
      offsets[n] = used;
    }
    const ends = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const size = this.sizes[at(i)];
      const next = i + 1 < n ? addrs[i + 1] : addrs[i] + Math.max(size, 1);
      ends[i] = size > 0 ? addrs[i] + size : Math.max(next, addrs[i] + 1);
    }
    return new SymbolTable(addrs, ends, new PackedNames(bytes, offsets));
  }
}
