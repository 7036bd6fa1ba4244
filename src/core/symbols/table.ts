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

/** Names left in the symbol cache file, read one at a time when a sample lands in that symbol. */
export class FileNames implements NameStore {
  constructor(
    private readonly path: string,
    /** File offset of the first name byte. */
    private readonly base: number,
    private readonly offsets: Uint32Array,
  ) {}

  read(i: number): string {
    const len = this.offsets[i + 1] - this.offsets[i];
    const buf = Buffer.allocUnsafe(len);
    let fd = -1;
    try {
      fd = openSync(this.path, 'r');
      if (readSync(fd, buf, 0, len, this.base + this.offsets[i]) !== len) return '';
      return buf.toString('utf8');
    } catch {
      // The cache was cleaned while we ran: the caller falls back to library+offset.
      return '';
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
    rows.sort((x, y) => x.addr - y.addr);
    const n = rows.length;
    const addrs = new Float64Array(n);
    const ends = new Float64Array(n);
    const names = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      addrs[i] = r.addr;
      names[i] = r.name;
      const next = i + 1 < n ? rows[i + 1].addr : r.addr + Math.max(r.size, 1);
      ends[i] = r.size > 0 ? r.addr + r.size : Math.max(next, r.addr + 1);
    }
    return new SymbolTable(addrs, ends, PackedNames.pack(names));
  }
}
