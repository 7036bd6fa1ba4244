import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openNamedFile } from '../../namedFiles';
import { readLines } from '../lines';
import { TimedJitMap } from './jitTimeline';

/** A JIT map of a long run is some MB; far bigger is not one. */
const MAX_MAP_BYTES = 1024 * 1024 * 1024;
const MAP_NAME = /^perf-(\d+)\.map$/;
/** `start size ` of a map line (hex), before the name. */
const MAP_ROW = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) /;
/** The launcher's compact copy of a jitdump (`jit-<pid>.map`), or a raw `jit-<pid>.dump` left beside perf.data. */
const TIMED_NAME = /^jit-(\d+)\.(map|dump)$/;

/** What a map says of an address: one code object's name, several (V8 reused the address), or nothing. */
export type MapLookup = { name: string } | { ambiguous: number } | null;

/** `JS:~f file:1:2` and `JS:*f file:1:2` are the same function at two tiers: not two candidates. */
function functionOf(name: string): string {
  return name.replace(/^(JS|LazyCompile|Function|Script|Eval):[~^+*]?/, '$1:');
}

/** One `perf-<pid>.map` (`start size name` per line, hex numbers), searchable by address. */
export class JitMap {
  private constructor(
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly names: string[],
    /** The largest end of entries 0..i: entries before `i` cannot cover an address past it. */
    private readonly maxEnds: Float64Array,
    /** Each entry's line number in the file: the later line is the newer code. */
    private readonly lineOf: Uint32Array,
  ) {}

  static async read(path: string): Promise<JitMap | null> {
    let opened;
    try {
      opened = await openNamedFile(path, { maxBytes: MAX_MAP_BYTES });
    } catch {
      return null;
    }
    const rows: { start: number; end: number; name: string }[] = [];
    try {
      await readLines(
        { path, fh: opened.fh },
        (line) => {
          const m = MAP_ROW.exec(line);
          if (!m) {
            // V8 writes names unescaped: a line break in one (`obj['a\nb']`) puts the rest of it on a line of its own.
            if (rows.length) rows[rows.length - 1].name += `\n${line}`;
            return;
          }
          const start = parseInt(m[1], 16);
          const size = parseInt(m[2], 16);
          if (Number.isFinite(start) && size > 0) rows.push({ start, end: start + size, name: line.slice(m[0].length) });
        },
        { encoding: 'utf8' },
      );
    } finally {
      await opened.fh.close().catch(() => undefined);
    }
    const order = rows.map((_, i) => i).sort((a, b) => rows[a].start - rows[b].start || a - b);
    const ends = Float64Array.from(order, (i) => rows[i].end);
    const maxEnds = new Float64Array(ends.length);
    for (let i = 0; i < ends.length; i++) maxEnds[i] = Math.max(ends[i], i ? maxEnds[i - 1] : 0);
    return new JitMap(
      Float64Array.from(order, (i) => rows[i].start),
      ends,
      order.map((i) => rows[i].name),
      maxEnds,
      Uint32Array.from(order),
    );
  }

  /**
   * The code at `addr`. The map has no times, so where V8 freed code and put other code at the same address
   * the lines cannot tell which one a sample hit: that is said (`ambiguous`), never guessed.
   */
  lookup(addr: number): MapLookup {
    const a = this.starts;
    let lo = 0;
    let hi = a.length - 1;
    if (hi < 0 || addr < a[0]) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= addr) lo = mid;
      else hi = mid - 1;
    }
    // The newest entry (latest line) is the name when all entries are one function (at several tiers).
    let found = -1;
    const others = new Set<string>();
    for (let i = lo; i >= 0 && this.maxEnds[i] > addr; i--) {
      if (addr >= this.ends[i]) continue;
      if (found < 0 || this.lineOf[i] > this.lineOf[found]) found = i;
      others.add(functionOf(this.names[i]));
    }
    if (found < 0) return null;
    return others.size > 1 ? { ambiguous: others.size } : { name: this.names[found] };
  }

  /** The name of the code at `addr` when only one function was ever there, or null. */
  find(addr: number): string | null {
    const r = this.lookup(addr);
    return r && 'name' in r ? r.name : null;
  }
}

/** A process's JIT code as a run folder keeps it: the `perf-<pid>.map` copy, and the timed jitdump when there is one. */
export interface SavedJit {
  map?: JitMap;
  timed?: TimedJitMap;
}

/** The JIT maps a run folder keeps (the launcher saves them), by pid. */
export async function savedJitMaps(dir: string): Promise<Map<number, SavedJit>> {
  const out = new Map<number, SavedJit>();
  if (process.platform !== 'linux') return out;
  const names = await readdir(dir).catch(() => [] as string[]);
  const entry = (pid: number): SavedJit => out.get(pid) ?? (out.set(pid, {}), out.get(pid)!);
  for (const n of names) {
    const m = MAP_NAME.exec(n);
    if (m) {
      const map = await JitMap.read(join(dir, n));
      if (map) entry(Number(m[1])).map = map;
      continue;
    }
    const t = TIMED_NAME.exec(n);
    // The compact `.map` wins over a `.dump` of the same pid.
    if (!t || (t[2] === 'dump' && names.includes(`jit-${t[1]}.map`))) continue;
    const timed = await TimedJitMap.read(join(dir, n));
    if (timed?.size) entry(Number(t[1])).timed = timed;
  }
  return out;
}
