import * as l10n from '@vscode/l10n';
import { open, type FileHandle } from 'node:fs/promises';
import { ProfileError } from '../model';

const CHUNK = 1 << 20;

export interface LineOptions {
  signal?: AbortSignal;
  /** Bytes of the file consumed so far, after each read. */
  onRead?: (consumed: number) => void;
  /**
   * What to do with text after the last line break: a folded file may end without one (it is a line), a V8 log
   * that does was cut mid-record (it is returned as `partialTail`, not read).
   */
  lastLine?: 'line' | 'tail';
}

export interface LineReadResult {
  /** Text after the last line break when `lastLine` is 'tail' (latin1, as the log's records are ASCII). */
  partialTail: string;
  bytes: number;
}

/**
 * The one line reader of the importers. Calls `onLine(buf, start, end)` for each line of a file, split where
 * readline splits (`\n`, `\r\n`, a lone `\r`), and makes no string. Each read fills a new buffer, so a line's
 * bytes stay valid after the call (a reader may compare a line with the one before). `onLine` may return a
 * promise (e.g. while symbols load); reading waits for it.
 */
export async function forEachLine(
  file: string | { path: string; fh: FileHandle },
  onLine: (buf: Buffer, start: number, end: number) => void | Promise<void>,
  opts: LineOptions = {},
): Promise<LineReadResult> {
  // A file the caller opened (e.g. checked by openNamedFile) is the caller's to close.
  const path = typeof file === 'string' ? file : file.path;
  const fh = typeof file === 'string' ? await open(path, 'r') : file.fh;
  try {
    let rest: Buffer | undefined;
    let consumed = 0;
    for (;;) {
      if (opts.signal?.aborted) throw new ProfileError(l10n.t('cancelled'), path);
      const kept = rest?.length ?? 0;
      const buf = Buffer.allocUnsafe(Math.max(CHUNK, 2 * kept));
      rest?.copy(buf, 0);
      const { bytesRead } = await fh.read(buf, kept, buf.length - kept, null);
      const eof = bytesRead === 0;
      const data = buf.subarray(0, kept + bytesRead);
      const end = data.length;
      const pos = await splitLines(data, eof, opts.lastLine ?? 'line', onLine);
      consumed += pos;
      rest = pos < end ? data.subarray(pos, end) : undefined;
      opts.onRead?.(consumed);
      if (eof) return { partialTail: rest?.toString('latin1') ?? '', bytes: consumed + (rest?.length ?? 0) };
    }
  } finally {
    if (typeof file === 'string') await fh.close();
  }
}

/**
 * Calls `onLine(data, start, end)` for each line of `data`, split where readline splits (`\n`, `\r\n`, a lone `\r`),
 * and answers where the first line not ended starts (`data.length` when every line ended). `eof`: nothing follows
 * `data`, so a `\r` at its end ends a line, and text after the last break is a line unless `lastLine` is 'tail'
 * (else more may come: a `\r` at the end may be half of `\r\n`). forEachLine reads files by it, and a live log's
 * tail (v8log/tail.ts) the bytes appended since its last read.
 */
export async function splitLines(
  data: Buffer,
  eof: boolean,
  lastLine: 'line' | 'tail',
  onLine: (buf: Buffer, start: number, end: number) => void | Promise<void>,
): Promise<number> {
  const end = data.length;
  let pos = 0;
  let nl = data.indexOf(10);
  let cr = data.indexOf(13);
  while (pos < end) {
    if (nl !== -1 && nl < pos) nl = data.indexOf(10, pos);
    if (cr !== -1 && cr < pos) cr = data.indexOf(13, pos);
    let stop: number;
    let next: number;
    if (cr !== -1 && (nl === -1 || cr < nl)) {
      // A `\r` as the last byte read may be the first half of `\r\n`.
      if (cr + 1 === end && !eof) break;
      stop = cr;
      next = data[cr + 1] === 10 ? cr + 2 : cr + 1;
    } else if (nl !== -1) {
      stop = nl;
      next = nl + 1;
    } else if (eof && lastLine !== 'tail') {
      stop = next = end;
    } else break;
    const r = onLine(data, pos, stop);
    if (r) await r;
    pos = next;
  }
  return pos;
}

/** `forEachLine` with each line as a string (latin1 for V8's ASCII logs; utf8 where names may be any text). */
export function readLines(
  file: string | { path: string; fh: FileHandle },
  onLine: (line: string) => void | Promise<void>,
  opts: LineOptions & { encoding?: 'latin1' | 'utf8' } = {},
): Promise<LineReadResult> {
  const utf8 = opts.encoding === 'utf8';
  return forEachLine(file, (buf, start, end) => onLine(buf.toString(utf8 ? 'utf8' : 'latin1', start, end)), opts);
}
