import { openNamedFile } from '../../namedFiles';

/**
 * V8's `--perf-prof` jitdump (`jit-<pid>.dump`, the format of Linux perf's tools/perf/Documentation/jitdump-specification.txt):
 * one record per code object V8 made, each with a CLOCK_MONOTONIC timestamp, so an address V8 reused for other code
 * can be named by what occupied it when a sample was taken. Only code loads and moves are kept; the code bytes and
 * debug records, nearly all of the file, are skipped.
 */

/** One code object placed at [start, start + size) at `ts` (ns, CLOCK_MONOTONIC), or a move when `from` is set. */
export interface JitLoad {
  ts: number;
  start: number;
  size: number;
  name: string;
  /** For a move: where the code was before (the name is then the one loaded there). */
  from?: number;
}

const MAGIC = 0x4a695444;
const JIT_CODE_LOAD = 0;
const JIT_CODE_MOVE = 1;
const CHUNK = 1 << 20;
/** A jitdump holds every code object's bytes: a long run's is some GB; far bigger is not one. */
export const MAX_JITDUMP_BYTES = 64 * 1024 ** 3;

/** Reads the loads and moves of a jitdump in file order (V8 writes them in time order); a truncated tail is dropped. */
export async function readJitDump(path: string): Promise<JitLoad[] | null> {
  return (await readJitDumpFrom(path, 0))?.loads ?? null;
}

/**
 * The loads and moves of a jitdump from byte `from` on (0: the whole file; else where the last read's `end` said),
 * and `end`, the byte after its last whole record: a jitdump V8 is still writing is read on from there.
 */
export async function readJitDumpFrom(path: string, from: number): Promise<{ loads: JitLoad[]; end: number } | null> {
  // A path in a folder someone else made may be a FIFO or a device: only a regular file is read.
  const opened = await openNamedFile(path, { maxBytes: MAX_JITDUMP_BYTES }).catch(() => null);
  if (!opened) return null;
  const fh = opened.fh;
  try {
    let buf = Buffer.alloc(0);
    let pos = 0;
    let eof = false;
    // Keeps at least `n` bytes from `buf[at]` in memory when the file has them.
    const need = async (at: number, n: number): Promise<number> => {
      if (at + n <= buf.length || eof) return at;
      const keep = buf.subarray(at);
      const more = Buffer.alloc(Math.max(CHUNK, n));
      const { bytesRead } = await fh.read(more, 0, more.length, pos);
      pos += bytesRead;
      if (bytesRead === 0) eof = true;
      buf = Buffer.concat([keep, more.subarray(0, bytesRead)]);
      return 0;
    };
    let at = await need(0, 40);
    if (buf.length < 40) return null;
    const magic = buf.readUInt32LE(0);
    // A dump written on a big-endian machine says so by its magic; not met on the platforms perf mode runs on.
    if (magic !== MAGIC) return null;
    at = buf.readUInt32LE(8);
    if (from > at) {
      pos = from;
      buf = Buffer.alloc(0);
      at = 0;
    }
    const out: JitLoad[] = [];
    // The file offset of buf[at], and the end of the last whole record.
    const offsetOf = (i: number) => pos - buf.length + i;
    let end = offsetOf(at);
    for (;;) {
      at = await need(at, 16);
      if (at + 16 > buf.length) break;
      const id = buf.readUInt32LE(at);
      const total = buf.readUInt32LE(at + 4);
      if (total < 16) break;
      const ts = Number(buf.readBigUInt64LE(at + 8));
      if (id === JIT_CODE_LOAD || id === JIT_CODE_MOVE) {
        // Only the fixed part and the name are needed: at most 4 KB past the header, never the code bytes.
        const want = Math.min(total, 16 + 40 + 4096);
        at = await need(at, want);
        if (at + Math.min(want, 56) > buf.length) break;
        const body = at + 16;
        const start = Number(buf.readBigUInt64LE(body + 16));
        if (id === JIT_CODE_LOAD) {
          const size = Number(buf.readBigUInt64LE(body + 24));
          const nameAt = body + 40;
          const limit = Math.min(buf.length, at + total);
          let end = buf.indexOf(0, nameAt);
          if (end < 0 || end > limit) end = limit;
          out.push({ ts, start, size, name: buf.toString('utf8', nameAt, end) });
        } else {
          const to = Number(buf.readBigUInt64LE(body + 24));
          const size = Number(buf.readBigUInt64LE(body + 32));
          out.push({ ts, start: to, size, name: '', from: start });
        }
      }
      // Skip the rest of the record without reading it into memory when it is long (code bytes).
      const next = at + total;
      if (next <= buf.length) at = next;
      else {
        pos += next - buf.length;
        buf = Buffer.alloc(0);
        at = 0;
        if ((await fh.stat()).size < pos) {
          // cut off: read again from its start next time
          if (id === JIT_CODE_LOAD || id === JIT_CODE_MOVE) out.pop();
          break;
        }
      }
      end = offsetOf(at);
    }
    return { loads: out, end };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The compact form a run folder keeps (`jit-<pid>.map`): `ts start size name` per line, ts in ns, the rest hex; a move is `ts start size >from`. */
export function formatJitLoads(loads: JitLoad[]): string {
  return loads
    .map((l) => `${l.ts} ${l.start.toString(16)} ${l.size.toString(16)} ${l.from !== undefined ? '>' + l.from.toString(16) : l.name}`)
    .join('\n');
}

/** `ts start size ` of a compact load line (decimal ns, hex, hex), before the name or `>from`. */
const LOAD_ROW = /^(\d+) ([0-9a-f]+) ([0-9a-f]+) /;

/** Parses `formatJitLoads` text; malformed lines are skipped. */
export function parseJitLoads(text: string): JitLoad[] {
  const out: JitLoad[] = [];
  let last: JitLoad | undefined;
  for (const line of text.split('\n')) {
    const m = LOAD_ROW.exec(line);
    if (!m) {
      // A line break in a function's name (`obj['a\nb']`; written as V8 gave it) put the rest of it on this line.
      if (last && last.from === undefined) last.name += `\n${line}`;
      continue;
    }
    last = undefined;
    const ts = Number(m[1]);
    const start = parseInt(m[2], 16);
    const size = parseInt(m[3], 16);
    if (!Number.isFinite(ts) || !Number.isFinite(start) || !(size > 0)) continue;
    const name = line.slice(m[0].length);
    if (name.startsWith('>')) out.push({ ts, start, size, name: '', from: parseInt(name.slice(1), 16) });
    else out.push((last = { ts, start, size, name }));
  }
  return out;
}
