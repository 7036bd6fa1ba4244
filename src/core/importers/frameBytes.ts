// A profile's nodes share a few hundred call frames (100k nodes in a .cpuprofile, a third of a bench trace), and V8
// writes each frame's object the same way each time: a frame whose bytes were seen before is known by them, without
// a string or an object made of it. Only a new one is parsed, by the reader, which remembers it with what it made of it.

/** The bytes of a call frame its hash is of: V8's begin `{"functionName":"`, then the name and `scriptId`. */
const HASHED = 48;

/** Call frames' texts by their bytes, each with a number the reader gives it (its index of the parsed frame). */
export class FrameBytes {
  /** Entries by hash (open addressing; entry + 1, 0 for none), at most half full. */
  private slots = new Int32Array(1024);
  private readonly keys: Buffer[] = [];
  private readonly hashes: number[] = [];
  /** Each key as little-endian int32 words, its last 0 to 3 bytes left out: a frame is compared four bytes at a time. */
  private readonly words: Int32Array[] = [];
  private readonly values: number[] = [];
  /** Each key's last four bytes as a word. */
  private readonly tails: number[] = [];
  /** The bytes given to `use`, and a view of them that reads words. */
  private viewOf: Buffer | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));
  /** The index past the frame find found last. */
  end = 0;

  /**
   * The bytes find and remember read next, told once for many frames: a new view of each chunk, made in find, was a
   * branch taken first after find was optimized (it was thrown away and compiled again).
   */
  use(b: Buffer): void {
    if (b !== this.viewOf) {
      this.viewOf = b;
      this.view = new DataView(b.buffer, b.byteOffset, b.length);
    }
  }

  /**
   * The number of the frame whose bytes `b` (given to `use`) hold at `j` (a `{`): the bytes of a whole object seen
   * before are that object, whatever follows; `end` is then the index past them. -1 when none is (`remember` may then
   * add it).
   */
  find(b: Buffer, j: number, n: number): number {
    const view = this.view;
    // Candidates are those whose first bytes hash the same (V8's frames are longer: shorter ones are parsed each time).
    const h = j + HASHED <= n ? frameHash(view, j) : 0;
    if (h === 0) return -1;
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s] - 1;
      if (e < 0) return -1;
      if (this.hashes[e] !== h) continue;
      const key = this.keys[e];
      const len = key.length;
      // Frames that hash the same (one script's anonymous functions) most often differ in their line and column, last.
      if (j + len > n || view.getInt32(j + len - 4, true) !== this.tails[e]) continue;
      const words = this.words[e];
      const nw = words.length;
      let k = 0;
      while (k < nw && view.getInt32(j + 4 * k, true) === words[k]) k++;
      if (k < nw) continue;
      k *= 4;
      while (k < len && key[k] === b[j + k]) k++;
      if (k === len) {
        this.end = j + len;
        return this.values[e];
      }
    }
  }

  /**
   * The number of the call frame object at `j` (a `{`, in `b` given to `use`): found by its bytes, else the number
   * `parse` gives its text, remembered; `end` is then the index past it. -1 when it is no flat object or `parse`
   * refuses it (-1).
   */
  read(b: Buffer, j: number, n: number, parse: (text: string) => number): number {
    const seen = this.find(b, j, n);
    if (seen >= 0) return seen;
    const to = objectEnd(b, j, n);
    if (to < 0) return -1;
    const value = parse(b.toString('utf8', j, to));
    if (value < 0) return -1;
    this.remember(b, j, to, value);
    this.end = to;
    return value;
  }

  /**
   * Remembers `b[j, to)`, a whole object find has just not found at `j`, as `value` (>= 0). One too short to hash is
   * not: it is parsed each time.
   */
  remember(b: Buffer, j: number, to: number, value: number): void {
    if (to - j < HASHED || b !== this.viewOf) return;
    // Hashed again (new frames are rare) rather than kept from find.
    const h = frameHash(this.view, j);
    const key = Buffer.from(b.subarray(j, to));
    const e = this.keys.length;
    this.keys.push(key);
    const words = new Int32Array(key.length >>> 2);
    for (let k = 0; k < words.length; k++) words[k] = key.readInt32LE(4 * k);
    this.words.push(words);
    this.hashes.push(h);
    this.values.push(value);
    this.tails.push(key.readInt32LE(key.length - 4));
    if (2 * (e + 1) > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      for (let x = 0; x <= e; x++) this.place(this.hashes[x], x);
    } else this.place(h, e);
  }

  private place(h: number, e: number): void {
    const mask = this.slots.length - 1;
    let s = h & mask;
    while (this.slots[s]) s = (s + 1) & mask;
    this.slots[s] = e + 1;
  }
}

/** A hash of the first HASHED bytes at `j` (all within the view), read as words; never 0. */
function frameHash(view: DataView, j: number): number {
  let h = 0x811c9dc5;
  for (let k = 16; k < HASHED; k += 4) h = Math.imul(h ^ view.getInt32(j + k, true), 0x01000193);
  return h | 1;
}

/** The flat object at `j` (a `{`; no object or array in it): the index past its `}`, or -1. */
export function objectEnd(b: Buffer, j: number, n: number): number {
  j++;
  while (j < n) {
    const c = b[j++];
    if (c === 0x7d) return j;
    if (c === 0x22) {
      // To the closing quote, an escaped one stepped over.
      for (;;) {
        if (j >= n) return -1;
        const s = b[j++];
        if (s === 0x22) break;
        if (s === 0x5c) j++;
      }
    } else if (c === 0x7b || c === 0x5b) return -1;
  }
  return -1;
}
