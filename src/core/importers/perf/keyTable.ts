/**
 * Frame text → frame id, looked up straight from the input bytes: hashing and comparing the bytes in
 * place allocates nothing, where `slice` + `Map.get` made a string per frame line (a million per
 * 100 MB), and typed-array reads are several times faster than `charCodeAt` here.
 */
export class FrameKeyTable {
  private mask = 1023;
  private hashes = new Int32Array(1024);
  private ids = new Int32Array(1024).fill(-1);
  private keys: Uint8Array[] = new Array<Uint8Array>(1024);
  private used = 0;

  /** Two interleaved FNV-1a lanes, so the multiply chains overlap. */
  static hash(b: Uint8Array, start: number, end: number): number {
    let x = 0x811c9dc5;
    let y = 0x01000193 ^ (end - start);
    let i = start;
    for (; i + 1 < end; i += 2) {
      x = Math.imul(x ^ b[i], 0x01000193);
      y = Math.imul(y ^ b[i + 1], 0x01000193);
    }
    if (i < end) x = Math.imul(x ^ b[i], 0x01000193);
    return Math.imul(x ^ (y >>> 15), 0x85ebca6b) ^ y;
  }

  /** The id stored for the bytes `b[start, end)`, or -1. */
  find(b: Uint8Array, start: number, end: number, hash: number): number {
    const len = end - start;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const id = this.ids[i];
      if (id === -1) return -1;
      if (this.hashes[i] === hash) {
        const k = this.keys[i];
        if (k.length === len && same(k, b, start)) return id;
      }
    }
  }

  /** Stores a copy of `b[start, end)`. */
  add(b: Uint8Array, start: number, end: number, hash: number, id: number): void {
    this.insert(b.slice(start, end), hash, id);
  }

  private insert(key: Uint8Array, hash: number, id: number): void {
    if ((this.used + 1) * 2 > this.mask) this.grow();
    let i = hash & this.mask;
    while (this.ids[i] !== -1) i = (i + 1) & this.mask;
    this.hashes[i] = hash;
    this.ids[i] = id;
    this.keys[i] = key;
    this.used++;
  }

  private grow(): void {
    const { hashes, ids, keys } = this;
    const size = (this.mask + 1) * 2;
    this.mask = size - 1;
    this.hashes = new Int32Array(size);
    this.ids = new Int32Array(size).fill(-1);
    this.keys = new Array<Uint8Array>(size);
    this.used = 0;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== -1) this.insert(keys[i], hashes[i], ids[i]);
  }
}

function same(k: Uint8Array, b: Uint8Array, at: number): boolean {
  for (let i = 0; i < k.length; i++) if (k[i] !== b[at + i]) return false;
  return true;
}
