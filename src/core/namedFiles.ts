import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';

/**
 * Reading a file whose path came from profile data (a source map a script names, a library a log lists,
 * a run folder's run.json): the path is the file author's choice, so it may be a FIFO (an open blocks
 * for ever), a device (`/dev/zero` never ends, `/dev/stdin` blocks), a directory, or huge. Only regular
 * files are read, up to a size cap, and a read that stalls (a hung network disk) is given up on.
 */

/** Why a named file was not read; `message` is a short localized sentence without the path. */
export class NamedFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: 'missing' | 'not-regular' | 'too-big' | 'timeout' | 'unreadable',
    message: string,
  ) {
    super(message);
    this.name = 'NamedFileError';
  }
}

export interface NamedReadOptions {
  /** Larger files are refused (as `too-big`). */
  maxBytes: number;
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
}

/** A run folder's run.json is a few KB. */
export const MAX_RUN_JSON_BYTES = 16 * 1024 * 1024;

// An open of a FIFO with O_NONBLOCK returns at once instead of waiting for a writer; a regular file ignores it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const DEFAULT_TIMEOUT_MS = 10_000;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return l10n.t('a folder');
  if (st.isFIFO()) return l10n.t('a pipe (FIFO)');
  if (st.isCharacterDevice() || st.isBlockDevice()) return l10n.t('a device');
  if (st.isSocket()) return l10n.t('a socket');
  return l10n.t('something else');
}

function refuse(path: string, st: Stats | null, maxBytes: number, e?: unknown): NamedFileError {
  if (!st) {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return new NamedFileError(path, 'missing', l10n.t('not found'));
    return new NamedFileError(path, 'unreadable', l10n.t('cannot read: {0}', code ?? (e as Error | undefined)?.message ?? '?'));
  }
  if (!st.isFile()) return new NamedFileError(path, 'not-regular', l10n.t('not read: it is {0}, not a regular file', kindOf(st)));
  return new NamedFileError(
    path,
    'too-big',
    l10n.t(
      'not read: {0} MB is more than the {1} MB allowed for this kind of file',
      (st.size / 2 ** 20).toFixed(1),
      (maxBytes / 2 ** 20).toFixed(1),
    ),
  );
}

const fits = (st: Stats, maxBytes: number) => st.isFile() && st.size <= maxBytes;

/** Rejects with a `timeout` NamedFileError if `p` has not settled in `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, path: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new NamedFileError(path, 'timeout', l10n.t('not read: no answer within {0} s', String(Math.round(ms / 1000))))),
      ms,
    );
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** The file's stats (symlinks followed) when it is a regular file within `maxBytes`; null otherwise. */
export async function regularFile(path: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Stats | null> {
  const st = await stat(path).catch(() => null);
  return st && fits(st, maxBytes) ? st : null;
}

/**
 * Opens a named file for reading once it is known to be a regular file within `maxBytes`: checked
 * before the open (so a device is never opened) and again on the open handle (the path may have been
 * swapped in between). Throws NamedFileError.
 */
export async function openNamedFile(path: string, opts: NamedReadOptions): Promise<{ fh: FileHandle; size: number }> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    throw refuse(path, null, opts.maxBytes, e);
  }
  if (!fits(st, opts.maxBytes)) throw refuse(path, st, opts.maxBytes);
  let fh: FileHandle;
  try {
    fh = await withTimeout(open(path, OPEN_FLAGS), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, path);
  } catch (e) {
    if (e instanceof NamedFileError) throw e;
    throw refuse(path, null, opts.maxBytes, e);
  }
  const now = await fh.stat().catch(() => null);
  if (!now || !fits(now, opts.maxBytes)) {
    await fh.close();
    throw refuse(path, now, opts.maxBytes);
  }
  return { fh, size: now.size };
}

/** The whole of a named regular file (at most `maxBytes`), or a NamedFileError. */
export async function readNamedFile(path: string, opts: NamedReadOptions): Promise<Buffer> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { fh, size } = await openNamedFile(path, { ...opts, timeoutMs });
  const read = async (): Promise<Buffer> => {
    // A file that grew since the stat is read to the size it had then.
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  };
  try {
    return await withTimeout(read(), timeoutMs, path);
  } catch (e) {
    if (e instanceof NamedFileError) throw e;
    throw refuse(path, null, opts.maxBytes, e);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** `readNamedFile` as UTF-8 text. */
export async function readNamedText(path: string, opts: NamedReadOptions): Promise<string> {
  return (await readNamedFile(path, opts)).toString('utf8');
}

/** `readNamedText` for the few callers that cannot wait (no timeout: only a regular file is read). */
export function readNamedTextSync(path: string, maxBytes: number): string {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw refuse(path, null, maxBytes, e);
  }
  if (!fits(st, maxBytes)) throw refuse(path, st, maxBytes);
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const now = fstatSync(fd);
    if (!fits(now, maxBytes)) throw refuse(path, now, maxBytes);
    const buf = Buffer.allocUnsafe(now.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.toString('utf8', 0, got);
  } finally {
    closeSync(fd);
  }
}

/**
 * Line `n` (1-based) of the files a profile names, for a report that quotes them: only files `accept` lets
 * through, each read once (up to `maxBytes`, from `open` first when the caller holds its text), undefined
 * when it cannot be read.
 */
export function sourceLines(
  accept: (path: string) => boolean,
  maxBytes: number,
  open: (path: string) => string | undefined = () => undefined,
): (path: string, line: number) => string | undefined {
  const files = new Map<string, string[] | null>();
  return (path, line) => {
    if (!accept(path)) return undefined;
    let lines = files.get(path);
    if (lines === undefined) {
      try {
        lines = (open(path) ?? readNamedTextSync(path, maxBytes)).split('\n');
      } catch {
        lines = null;
      }
      files.set(path, lines);
    }
    return lines?.[line - 1];
  };
}
