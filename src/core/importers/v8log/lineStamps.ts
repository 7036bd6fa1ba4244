/**
 * A number for each (file, line) and a stamp per number: a stack counts each line once, and a stack of a real program
 * holds ~60 of them, too many to look for one by one.
 */
export class LineStamps {
  private readonly ids = new Map<string, Map<number, number>>();
  private count = 0;
  private seen = new Int32Array(1024);
  private current = 0;

  /** The numbers of parallel files and lines. */
  keys(files: string[], lines: number[]): Int32Array {
    const out = new Int32Array(files.length);
    for (let k = 0; k < files.length; k++) {
      let m = this.ids.get(files[k]);
      if (!m) this.ids.set(files[k], (m = new Map()));
      let id = m.get(lines[k]);
      if (id === undefined) m.set(lines[k], (id = this.count++));
      out[k] = id;
    }
    if (this.count > this.seen.length) {
      const grown = new Int32Array(Math.max(this.count, this.seen.length * 2));
      grown.set(this.seen);
      this.seen = grown;
    }
    return out;
  }

  /** A new stamp: no line is marked with it yet. */
  stamp(): number {
    // Past 2^31 stamps, start over with every mark cleared.
    if (this.current === 0x7fffffff) {
      this.seen.fill(0);
      this.current = 0;
    }
    return ++this.current;
  }

  /** Marks a line with the stamp; false when it already was. */
  mark(key: number, stamp: number): boolean {
    if (this.seen[key] === stamp) return false;
    this.seen[key] = stamp;
    return true;
  }
}
