import type { SavedJit } from './jitMaps';
import { nativeName, type NativeDebugSymbols } from './nativeSymbols';

/** What a JIT frame is called when V8 reused its address and nothing says which code ran: see classifyPerfFrame. */
export const AMBIGUOUS_JIT = '[ambiguous JIT code]';

const JIT_FRAME = /^([ \t]+)([0-9a-f]+) (.*) \(\/tmp\/perf-(\d+)\.map\)$/;
/**
 * A JIT name as one line of `perf script` text: a line break in a function's name (`obj['a\nb']`) is written as NUL
 * and a letter, NUL as two (perf prints no NUL); the perf parser reads it back with `nameFromLine`.
 */
export function nameInLine(name: string): string {
  return /[\0\n\r]/.test(name) ? name.replace(/[\0\n\r]/g, (c) => (c === '\n' ? '\0n' : c === '\r' ? '\0r' : '\0\0')) : name;
}

export function nameFromLine(text: string): string {
  return text.includes('\0') ? text.replace(/\0([^])/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)) : text;
}

/** `comm pid/tid [cpu] secs.frac:` — the thread and time of the sample the following frames belong to. */
const SAMPLE_HEAD = /^(.*?)\s+((-?\d+)\/-?\d+)\s+(?:\[\d+\]\s+)?(\d+)\.(\d+):/;
const MARK = Buffer.from('(/tmp/perf-');
/** A frame perf left unnamed in a file it knows: `\t    1183 [unknown] (/usr/lib/libpixman-1.so.0)`. */
const NATIVE_MARK = Buffer.from('[unknown] (/');
const UNKNOWN_NATIVE = /^([ \t]+)([0-9a-f]+) \[unknown\] \((\/.*)\)$/;

/** What the namer did, for the profile's warnings. */
export interface JitNamingStats {
  /** Frames named from a jitdump by the code at their address at their sample's time. */
  timed: number;
  /** Frames whose address held several functions over the run, with no time to choose: marked ambiguous. */
  ambiguous: number;
  /** The same, by thread (`comm pid/tid` as the profile names threads), so each thread's report can say so. */
  ambiguousByThread: Map<string, number>;
  /** A jitdump was there but the recording's clock was not CLOCK_MONOTONIC, so its times could not be used. */
  clockMismatch: boolean;
  /** Native frames perf left unnamed, by library: named from debug symbols, or kept as library+offset. */
  nativeNamed: number;
  nativeUnnamed: Map<string, number>;
}

/** The naming stats of several slices (or none) as one recording's. */
export function sumNamingStats(all: JitNamingStats[]): JitNamingStats {
  const s: JitNamingStats = {
    timed: 0,
    ambiguous: 0,
    ambiguousByThread: new Map(),
    clockMismatch: false,
    nativeNamed: 0,
    nativeUnnamed: new Map(),
  };
  for (const x of all) {
    s.timed += x.timed;
    s.ambiguous += x.ambiguous;
    s.clockMismatch ||= x.clockMismatch;
    s.nativeNamed += x.nativeNamed;
    for (const [k, v] of x.ambiguousByThread) s.ambiguousByThread.set(k, (s.ambiguousByThread.get(k) ?? 0) + v);
    for (const [k, v] of x.nativeUnnamed) s.nativeUnnamed.set(k, (s.nativeUnnamed.get(k) ?? 0) + v);
  }
  return s;
}

/**
 * Names the JIT frames of `perf script` output from the run folder's saved code records: by a jitdump's timed
 * loads when the recording used CLOCK_MONOTONIC (`perf record -k mono`, the clock V8 stamps its jitdump with),
 * else from the `perf-<pid>.map` copy, marking addresses V8 reused as ambiguous instead of naming them wrongly.
 * perf's own names (the first line of /tmp/perf-<pid>.map for an address) are replaced, as they can be stale.
 * Nothing is written to the shared /tmp. Feed chunks in order; `end` flushes.
 */
export class JitFrameNamer {
  private carry: Buffer = Buffer.alloc(0);
  private mono = false;
  private tsNs = 0;
  private thread = '';
  /** Sample headers are read only where a jitdump needs each sample's time. */
  private timed: boolean;
  readonly stats: JitNamingStats = sumNamingStats([]);

  constructor(
    private saved: Map<number, SavedJit>,
    private readonly native: NativeDebugSymbols = new Map(),
  ) {
    this.timed = [...saved.values()].some((j) => j.timed);
  }

  /** The code records to name the lines pushed from now on with (a live run's, grown since). */
  setMaps(saved: Map<number, SavedJit>): void {
    this.saved = saved;
    this.timed = [...saved.values()].some((j) => j.timed);
  }

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
    const hasJit = lines.includes(MARK);
    const hasNative = lines.includes(NATIVE_MARK);
    if (!hasJit && !hasNative && !this.timed) return lines;
    const text = lines.toString(hasJit || hasNative ? 'utf8' : 'latin1');
    const out = text.split('\n');
    for (let i = 0; i < out.length; i++) {
      const line = out[i];
      const c = line.charCodeAt(0);
      if (c === 35 /* # */) {
        if (line.startsWith('# clockid: ')) this.mono = /monotonic/.test(line);
      } else if (c !== 9 && c !== 32) {
        const h = SAMPLE_HEAD.exec(line);
        if (h) {
          // Named as the parser names threads (`comm pid/tid`).
          this.thread = `${h[1]} ${h[2]}`;
          this.tsNs = Number(h[4]) * 1e9 + Number(h[5].padEnd(9, '0').slice(0, 9));
        }
      } else if (hasJit && line.endsWith('.map)')) {
        out[i] = this.renameFrame(line);
      } else if (hasNative && line.includes('[unknown] (/')) {
        out[i] = this.renameNative(line);
      }
    }
    if (!hasJit && !hasNative) return lines;
    return Buffer.from(out.join('\n'), 'utf8');
  }

  private renameNative(line: string): string {
    const m = UNKNOWN_NATIVE.exec(line);
    // `//anon` and JIT maps are not files with offsets to keep.
    if (!m || m[3].startsWith('//') || /\/perf-\d+\.map$/.test(m[3])) return line;
    const [, indent, hex, dso] = m;
    const name = nativeName(this.native, dso, parseInt(hex, 16));
    if (name.includes('+0x')) this.stats.nativeUnnamed.set(dso, (this.stats.nativeUnnamed.get(dso) ?? 0) + 1);
    else this.stats.nativeNamed++;
    return `${indent}${hex} ${name} (${dso})`;
  }

  private renameFrame(line: string): string {
    const m = JIT_FRAME.exec(line);
    if (!m) return line;
    const [, indent, hex, , pidText] = m;
    const saved = this.saved.get(Number(pidText));
    if (!saved) return line;
    const addr = parseInt(hex, 16);
    let name: string | null = null;
    // Another process's code (a child Node forked, sampled before its exec on a copy of its parent's stack) is named
    // by time too: the parent's code at that time is what the copy holds; by the map it read as ambiguous.
    if (saved.timed && this.mono) {
      name = saved.timed.find(addr, this.tsNs);
      if (name !== null) this.stats.timed++;
    } else if (saved.timed && !this.mono) this.stats.clockMismatch = true;
    if (name === null && saved.map) {
      const r = saved.map.lookup(addr);
      if (r && 'ambiguous' in r) {
        this.stats.ambiguous++;
        this.stats.ambiguousByThread.set(this.thread, (this.stats.ambiguousByThread.get(this.thread) ?? 0) + 1);
        name = AMBIGUOUS_JIT;
      } else if (r) name = r.name;
    }
    return `${indent}${hex} ${name === null ? '[unknown]' : nameInLine(name)} (/tmp/perf-${pidText}.map)`;
  }
}
