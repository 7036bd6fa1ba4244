import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Profile } from '../../model';
import type { ImportOptions, Importer } from '../types';
import { PerfScriptParser } from './parser';
import { loadPerfData } from './runner';
import { PerfSlices } from './slices';
import { FramePointerCheck } from './framePointers';
import { savedJitMaps, type SavedJit } from './jitMaps';

export { PerfScriptParser } from './parser';
export { PerfSlices } from './slices';
export { classifyPerfFrame } from './frames';
export { loadPerfData, perfScriptArgs, PERF_SCRIPT_FIELDS } from './runner';

const PERF_DATA_MAGIC = 'PERFILE2';
/** A sample header (`comm pid[/tid] [cpu] time: [period] event:`), then a tab-indented frame (`addr sym (dso)`). */
const SCRIPT_HEADER = /^\S.*?\s-?\d+(?:\/-?\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?\S+:/;
const SCRIPT_FRAME_START = /^\s+[0-9a-f]+\s+\S/i;

/** `\taddr sym (dso)`: checked by hand, as /\S.*\(.*\)\s*$/ backtracks over every `(` of a long line. */
function isScriptFrame(line: string): boolean {
  const m = SCRIPT_FRAME_START.exec(line);
  if (!m) return false;
  const t = line.trimEnd();
  return t.endsWith(')') && t.lastIndexOf('(', t.length - 2) >= m[0].length;
}

export function isPerfData(head: Buffer): boolean {
  return head.length >= 8 && head.toString('latin1', 0, 8) === PERF_DATA_MAGIC;
}

export function isPerfScript(head: Buffer): boolean {
  const lines = head.toString('utf8').split('\n', 200);
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line === '' || line.startsWith('#')) continue;
    return SCRIPT_HEADER.test(line) && isScriptFrame(lines[i + 1].replace(/\r$/, ''));
  }
  return false;
}

async function loadPerfScriptText(path: string, opts: ImportOptions): Promise<Profile> {
  opts.signal?.throwIfAborted();
  const size = (await stat(path)).size;
  const parser = new PerfScriptParser();
  parser.threadLabel = opts.threadLabel;
  const stream = createReadStream(path, { highWaterMark: 1 << 20, signal: opts.signal });
  let read = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    parser.push(chunk);
    read += chunk.length;
    opts.onProgress?.(size ? read / size : 1);
  }
  return parser.end();
}

/**
 * The `perf script` texts of one recording's slices (a live perf run: `perf record --switch-output`, each slice
 * scripted as it ended) read in order as one recording (slices.ts), with the JIT frames named from the run folder's
 * saved code records as a whole perf.data's would be.
 */
export async function loadPerfScriptFiles(paths: string[], opts: ImportOptions, jit?: Map<number, SavedJit>): Promise<Profile> {
  const stats = await Promise.all(paths.map((p) => stat(p)));
  // A run folder's own scripts, made on this machine: its libraries are the recording's if not changed since.
  const check = paths.length
    ? await FramePointerCheck.load({
        mapped: { paths: await FramePointerCheck.mappedIn(dirname(paths[0])), madeAt: Math.min(...stats.map((s) => s.mtimeMs)) },
      })
    : undefined;
  const slices = new PerfSlices(check);
  const saved = jit ?? (paths.length ? await savedJitMaps(dirname(paths[0])) : new Map<number, SavedJit>());
  const sizes = stats.map((s) => s.size);
  const total = sizes.reduce((a, b) => a + b, 0);
  let read = 0;
  try {
    for (const path of paths)
      await slices.add(path, saved, opts, (n) => {
        read += n;
        opts.onProgress?.(total ? read / total : 1);
      });
    return slices.end();
  } finally {
    check?.close();
  }
}

export const perfImporter: Importer = {
  format: 'perf',
  sniff: (head) => isPerfData(head) || isPerfScript(head),
  load: async (path, opts) => {
    const head = await readMagic(path);
    return isPerfData(head) ? loadPerfData(path, opts) : loadPerfScriptText(path, opts);
  },
};

async function readMagic(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(8);
    const { bytesRead } = await fh.read(buf, 0, 8, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
