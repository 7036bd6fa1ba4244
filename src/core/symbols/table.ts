/** Function symbols of one binary, sorted by link-time address, searchable by address. */
export class SymbolTable {
  constructor(
    readonly addrs: Float64Array,
    /** End address (exclusive); a symbol without size ends where the next one starts. */
    readonly ends: Float64Array,
    readonly names: string[],
  ) {}

  get size(): number {
    return this.names.length;
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
    return new SymbolTable(addrs, ends, names);
  }
}
