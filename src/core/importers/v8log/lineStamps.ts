import type { ProfileBuilder } from '../../model';
import { grownLater } from './grownLater';
import { doubled } from '../../doubled';

/**
 * A number for each (file, line) and a stamp per number: a stack counts each line once, and a stack of a real program
 * holds ~60 of them, too many to look for one by one. Stacks keep their lines as these numbers, and their hits are
 * added up here by number, handed to the profile once the log is read.
 */
export class LineStamps {
  private readonly ids = new Map<string, Map<number, number>>();
  private readonly fileIndex = new Map<string, number>();
  private count = 0;
  private seen = new Int32Array(1024);
  private current = 0;
  /** By number: its file (index into `files`) and line. */
  fileOf = new Int32Array(1024);
  lineOf: number[] = [];
  readonly files: string[] = [];
  /** Hits by number, and the numbers in the order first hit (the order the profile's line table is filled in). */
  private self = new Float64Array(1024);
  private total = new Float64Array(1024);
  private readonly order: number[] = [];

  constructor() {
    grownLater(this, 'seen', 'fileOf', 'self', 'total');
  }

  /**
   * The numbers of parallel files and lines. A plain array: one small typed array per answer (tsc: 20 000) was a
   * typed array, an ArrayBuffer and its store each, made through the runtime until the caller is optimized.
   */
  keys(files: string[], lines: number[]): number[] {
    const out: number[] = [];
    for (let k = 0; k < files.length; k++) {
      let m = this.ids.get(files[k]);
      if (!m) this.ids.set(files[k], (m = new Map()));
      let id = m.get(lines[k]);
      if (id === undefined) {
        m.set(lines[k], (id = this.count++));
        if (id === this.fileOf.length) this.grow();
        this.fileOf[id] = this.fileIndexOf(files[k]);
        this.lineOf.push(lines[k]);
      }
      out.push(id);
    }
    if (this.count > this.seen.length) this.seen = doubled(this.seen, this.count);
    return out;
  }

  /** The index of a file in `files`, or -1 when no line of it has a number. */
  indexOfFile(file: string): number {
    return this.fileIndex.get(file) ?? -1;
  }

  private fileIndexOf(file: string): number {
    let i = this.fileIndex.get(file);
    if (i === undefined) {
      this.fileIndex.set(file, (i = this.files.length));
      this.files.push(file);
    }
    return i;
  }

  private grow(): void {
    const n = this.fileOf.length * 2;
    const g = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.fileOf = g(this.fileOf, (k) => new Int32Array(k));
    this.self = g(this.self, (k) => new Float64Array(k));
    this.total = g(this.total, (k) => new Float64Array(k));
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

  /** Adds ticks to a line (`total` > 0). */
  hit(key: number, self: number, total: number): void {
    if (this.total[key] === 0) this.order.push(key);
    this.self[key] += self;
    this.total[key] += total;
  }

  /** Hands the lines' hits to the profile, in the order first hit, and starts over. */
  drain(b: ProfileBuilder): void {
    for (let i = 0; i < this.order.length; i++) {
      const k = this.order[i];
      b.lineHit(this.files[this.fileOf[k]], this.lineOf[k], this.self[k], this.total[k]);
      this.self[k] = 0;
      this.total[k] = 0;
    }
    this.order.length = 0;
  }
}
