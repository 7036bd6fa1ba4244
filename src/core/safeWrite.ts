import type * as Crypto from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const crypto = () => require('node:crypto') as typeof Crypto;

/**
 * Writing into a folder a repository controls (`.nodeflame/` and its run folders come with a clone): any name
 * there may already be a symlink to a file outside the workspace, planted for every temp name a writer could
 * pick. Files are created only with O_EXCL|O_NOFOLLOW (an existing name, a symlink included, fails), temp files
 * get random names, and a file is replaced by a rename only when what it replaces is a regular file. A failed
 * write (a full disk) leaves no temp or empty file behind.
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A new file, never an existing name: O_EXCL fails on any existing entry, a dangling symlink too. */
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
/** Append to a file, creating it, but never through a symlink (O_NOFOLLOW makes open fail with ELOOP). */
export const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;

/** The destination is a symlink or not a regular file: nothing was written. */
/**
 * Appends `text` to a file of a run folder from inside the profiled app, never following a link; never throws (a run
 * folder that went away, or a full disk, must not break the app), and leaves no empty file behind a failure.
 */
export function appendSync(path: string, text: string): void {
  try {
    const fd = openSync(path, APPEND_NOFOLLOW, 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch {
    try {
      if (statSync(path).size === 0) unlinkSync(path);
    } catch {
      // gone
    }
  }
}

export class UnsafeDestinationError extends Error {
  readonly code = 'EUNSAFEDEST';
  constructor(readonly path: string) {
    super(`${path} is a symbolic link or not a regular file; not replaced`);
    this.name = 'UnsafeDestinationError';
  }
}

function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${crypto().randomBytes(8).toString('hex')}.tmp`);
}

function writeAllSync(fd: number, data: Buffer): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

const asBuffer = (data: string | Uint8Array): Buffer => (typeof data === 'string' ? Buffer.from(data) : Buffer.from(data));

/** Creates `path` holding `data`; fails with EEXIST when the name exists (a symlink too). Removed again if the write fails. */
export function createNewFileSync(path: string, data: string | Uint8Array, mode = 0o644): void {
  createNewFileSyncFrom(path, (put) => put(data), mode);
}

/**
 * As createNewFileSync, the content given piece by piece to `put` by `write`: a profile of hundreds of MB need never
 * be one string (and its UTF-8 copy) in memory.
 */
export function createNewFileSyncFrom(path: string, write: (put: (data: string | Uint8Array) => void) => void, mode = 0o644): void {
  const fd = openSync(path, CREATE_NEW, mode);
  try {
    write((data) => writeAllSync(fd, asBuffer(data)));
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
    throw e;
  }
  closeSync(fd);
}

/** As createNewFileSync. */
export async function createNewFile(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const fh = await open(path, CREATE_NEW, mode);
  try {
    await fh.writeFile(asBuffer(data));
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw e;
  }
  await fh.close();
}

/** Throws UnsafeDestinationError when `path` exists and is not a regular file (a symlink, a folder, a FIFO). */
function checkDestinationSync(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (!st.isFile()) throw new UnsafeDestinationError(path);
}

async function checkDestination(path: string): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (st && !st.isFile()) throw new UnsafeDestinationError(path);
}

/** Creates a temp file beside `path` under a fresh random name (a few tries: the name may be taken). */
async function createTemp(path: string, data: Buffer): Promise<string> {
  for (let i = 0; ; i++) {
    const tmp = tempName(path);
    try {
      await createNewFile(tmp, data);
      return tmp;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 4) throw e;
    }
  }
}

function createTempSync(path: string, data: Buffer): string {
  for (let i = 0; ; i++) {
    const tmp = tempName(path);
    try {
      createNewFileSync(tmp, data);
      return tmp;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 4) throw e;
    }
  }
}

/**
 * Writes `data` to `path` whole (a reader never sees half a file): a random temp file created exclusively,
 * renamed over `path` only when `path` is missing or a regular file. rename(2) replaces the name, never what a
 * symlink points to; the check keeps a planted symlink from being silently swapped too.
 */
export async function replaceFile(path: string, data: string | Uint8Array): Promise<void> {
  await checkDestination(path);
  const tmp = await createTemp(path, asBuffer(data));
  try {
    await checkDestination(path);
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** As replaceFile, for callers that cannot wait (exit handlers). */
export function replaceFileSync(path: string, data: string | Uint8Array): void {
  checkDestinationSync(path);
  const tmp = createTempSync(path, asBuffer(data));
  try {
    checkDestinationSync(path);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}
