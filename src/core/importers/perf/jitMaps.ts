import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openNamedFile } from '../../namedFiles';

/** A JIT map of a long run is some MB; far bigger is not one. */
const MAX_MAP_BYTES = 1024 * 1024 * 1024;
const MAP_NAME = /^perf-(\d+)\.map$/;

/** One `perf-<pid>.map` (`start size name` per line, hex numbers), searchable by address. */
export class JitMap {
  private constructor(
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly names: string[],
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
      for await (const line of createInterface({ input: opened.fh.createReadStream({ encoding: 'utf8' }), crlfDelay: Infinity })) {
        const s1 = line.indexOf(' ');
        const s2 = s1 < 0 ? -1 : line.indexOf(' ', s1 + 1);
        if (s2 < 0) continue;
        const start = parseInt(line.slice(0, s1), 16);
        const size = parseInt(line.slice(s1 + 1, s2), 16);
        if (Number.isFinite(start) && size > 0) rows.push({ start, end: start + size, name: line.slice(s2 + 1) });
      }
    } finally {
      await opened.fh.close().catch(() => undefined);
    }
    // Code moved or freed leaves older entries at an address: the later line wins, as it is what ran last.
    const order = rows.map((_, i) => i).sort((a, b) => rows[a].start - rows[b].start || b - a);
    return new JitMap(
      Float64Array.from(order, (i) => rows[i].start),
      Float64Array.from(order, (i) => rows[i].end),
      order.map((i) => rows[i].name),
    );
  }

  /** The name of the code at `addr`, or null. */
  find(addr: number): string | null {
    const a = this.starts;
    let lo = 0;
    let hi = a.length - 1;
    if (hi < 0 || addr < a[0]) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= addr) lo = mid;
      else hi = mid - 1;
    }
    // Entries may overlap: look back a little for one that covers the address.
    for (let i = lo; i >= 0 && i > lo - 8; i--) if (addr < this.ends[i]) return this.names[i];
    return null;
  }
}

/** The `perf-<pid>.map` copies a run folder keeps (the launcher saves them), by pid. */
export async function savedJitMaps(dir: string): Promise<Map<number, JitMap>> {
  const out = new Map<number, JitMap>();
  if (process.platform !== 'linux') return out;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names) {
    const m = MAP_NAME.exec(n);
    if (!m) continue;
    const map = await JitMap.read(join(dir, n));
    if (map) out.set(Number(m[1]), map);
  }
  return out;
}

// A frame perf could not name because /tmp/perf-<pid>.map is gone: `\t    7f32077c7c1c [unknown] (/tmp/perf-7493.map)`.
const UNKNOWN_JIT = /^([ \t]+)([0-9a-f]+) \[unknown\] \(\/tmp\/perf-(\d+)\.map\)$/gm;
const MARK = Buffer.from('[unknown] (/tmp/perf-');

/**
 * Names the JIT frames of `perf script` output from the run folder's saved maps, as perf itself would
 * with the map in /tmp: nothing is written to the shared /tmp. Feed chunks in order; `end` flushes.
 */
export class JitFrameNamer {
  private carry: Buffer = Buffer.alloc(0);

  constructor(private readonly maps: Map<number, JitMap>) {}

  push(chunk: Buffer): Buffer {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const nl = data.lastIndexOf(10);
    if (nl < 0) {
      this.carry = data;
      return Buffer.alloc(0);
    }
    this.carry = Buffer.from(data.subarray(nl + 1));
    return this.rename(data.subarray(0, nl + 1));
  }

  end(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return this.rename(rest);
  }

  private rename(lines: Buffer): Buffer {
    if (!lines.includes(MARK)) return lines;
    const text = lines.toString('utf8').replace(UNKNOWN_JIT, (whole, indent: string, hex: string, pid: string) => {
      const name = this.maps.get(Number(pid))?.find(parseInt(hex, 16));
      return name ? `${indent}${hex} ${name} (/tmp/perf-${pid}.map)` : whole;
    });
    return Buffer.from(text, 'utf8');
  }
}
