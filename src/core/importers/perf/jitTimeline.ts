import { readNamedFile } from '../../namedFiles';
import type { JitLoad } from './jitDump';
import { parseJitLoads, readJitDump } from './jitDump';

/** The compact records of a long run are some MB (3.9 MB for 30,000 functions); far bigger is not one. */
const MAX_TIMED_MAP_BYTES = 512 * 1024 * 1024;

/**
 * The code at each JIT address as time goes on, from a jitdump: loads are applied in time order up to each
 * sample's time, so an address V8 freed and reused is named by the code that was there when the sample was
 * taken. Live code objects never overlap, so a load that overlaps older entries means those were freed.
 * Queries must come in (nearly) time order, as `perf script` prints samples.
 */
export class TimedJitMap {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly names: string[] = [];
  private next = 0;

  constructor(private loads: JitLoad[]) {
    // V8 writes in time order from one thread at a time; a stable sort guards against a worker's late write.
    let sorted = true;
    for (let i = 1; i < loads.length && sorted; i++) sorted = loads[i - 1].ts <= loads[i].ts;
    if (!sorted)
      this.loads = loads
        .map((l, i) => ({ l, i }))
        .sort((a, b) => a.l.ts - b.l.ts || a.i - b.i)
        .map((x) => x.l);
  }

  /** A run folder's `jit-<pid>.map` (compact) or a raw `jit-<pid>.dump`. */
  static async read(path: string): Promise<TimedJitMap | null> {
    if (path.endsWith('.dump')) {
      const loads = await readJitDump(path);
      return loads ? new TimedJitMap(loads) : null;
    }
    const text = await readNamedFile(path, { maxBytes: MAX_TIMED_MAP_BYTES }).catch(() => null);
    return text === null ? null : new TimedJitMap(parseJitLoads(text.toString('utf8')));
  }

  get size(): number {
    return this.loads.length;
  }

  /** Loads written since (a jitdump read on while V8 writes it), after those known: queries go on in time order. */
  extend(loads: JitLoad[]): void {
    for (const l of loads) this.loads.push(l);
  }

  /** The name of the code at `addr` at time `tsNs` (CLOCK_MONOTONIC ns), or null when no code was known there then. */
  find(addr: number, tsNs: number): string | null {
    const loads = this.loads;
    while (this.next < loads.length && loads[this.next].ts <= tsNs) this.apply(loads[this.next++]);
    const i = this.lastStartAtOrBefore(addr);
    return i >= 0 && addr < this.ends[i] ? this.names[i] : null;
  }

  private apply(l: JitLoad): void {
    let name = l.name;
    if (l.from !== undefined) {
      const i = this.lastStartAtOrBefore(l.from);
      if (i < 0 || this.starts[i] !== l.from) return;
      name = this.names[i];
      this.remove(i, 1);
    }
    const start = l.start;
    const end = start + l.size;
    // First entry ending after `start`: from there, every entry starting before `end` overlaps and is gone.
    let i = this.lastStartAtOrBefore(start);
    if (i < 0 || this.ends[i] <= start) i++;
    let j = i;
    while (j < this.starts.length && this.starts[j] < end) j++;
    this.starts.splice(i, j - i, start);
    this.ends.splice(i, j - i, end);
    this.names.splice(i, j - i, name);
  }

  private remove(i: number, n: number): void {
    this.starts.splice(i, n);
    this.ends.splice(i, n);
    this.names.splice(i, n);
  }

  private lastStartAtOrBefore(addr: number): number {
    const a = this.starts;
    let lo = 0;
    let hi = a.length - 1;
    if (hi < 0 || addr < a[0]) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= addr) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
