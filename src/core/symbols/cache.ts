import type * as Crypto from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { CREATE_NEW } from '../safeWrite';
import { cacheFolder } from '../cacheFolder';
import { join } from 'node:path';
import { openNamedFile } from '../namedFiles';
import { readSymbols } from './nm';
import { FileNames, PackedNames, SymbolTable } from './table';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const crypto = () => require('node:crypto') as typeof Crypto;

/** Tables kept in memory, least recently used first; bounded, as a long-lived extension host meets many binaries. */
const memory = new Map<string, Promise<SymbolTable>>();
const MEMORY_ENTRIES = 64;

/** `NODE_FLAME_CACHE_MAX_MB` caps the disk cache (default 256 MB); the least recently used files go first. */
function cacheCapBytes(): number {
  const mb = Number(process.env.NODE_FLAME_CACHE_MAX_MB);
  return (Number.isFinite(mb) && mb >= 0 ? mb : 256) * 2 ** 20;
}

const MAGIC = 0x3253464e; // "NFS2"

/** Whether the numbers of a cache file describe a table `find` and `name` can use; anything else is corruption. */
function consistent(starts: Float64Array, ends: Float64Array, offsets: Uint32Array, nameBytes: number): boolean {
  const n = starts.length;
  if (offsets[0] !== 0 || offsets[n] !== nameBytes) return false;
  for (let i = 0; i < n; i++) {
    if (offsets[i + 1] < offsets[i]) return false;
    if (!(starts[i] >= 0) || !(ends[i] > starts[i]) || !Number.isFinite(ends[i])) return false;
    if (i > 0 && !(starts[i] >= starts[i - 1])) return false;
  }
  return true;
}

/**
 * Layout: u32 magic, u32 count, count × f64 start, count × f64 end, (count + 1) × u32 name offsets,
 * then the names' UTF-8 bytes. Only the numbers are read up front; names stay in the file. A file that
 * does not hold together (cut short, offsets going backwards) is removed, so the next `nm` replaces it.
 */
async function fromDisk(file: string): Promise<SymbolTable | null> {
  let opened;
  try {
    opened = await openNamedFile(file, { maxBytes: Number.MAX_SAFE_INTEGER });
  } catch {
    return null;
  }
  const { fh, size } = opened;
  let bad = false;
  try {
    const head = Buffer.alloc(8);
    await fh.read(head, 0, 8, 0);
    const n = head.readUInt32LE(4);
    bad = head.readUInt32LE(0) !== MAGIC;
    const numBytes = n * 20 + 4;
    // The count is checked against the file before anything of that size is allocated.
    bad ||= 8 + numBytes > size;
    if (bad) return null;
    const nums = new ArrayBuffer(numBytes);
    const { bytesRead } = await fh.read(new Uint8Array(nums), 0, numBytes, 8);
    const starts = new Float64Array(nums, 0, n);
    const ends = new Float64Array(nums, n * 8, n);
    const offsets = new Uint32Array(nums, n * 16, n + 1);
    const base = 8 + numBytes;
    bad = bytesRead !== numBytes || !consistent(starts, ends, offsets, size - base);
    if (bad) return null;
    await utimes(file, new Date(), new Date()).catch(() => undefined);
    return new SymbolTable(starts, ends, new FileNames(file, base, offsets));
  } catch {
    bad = true;
    return null;
  } finally {
    await fh.close();
    if (bad) await unlink(file).catch(() => undefined);
  }
}

/** Bytes the cache folder holds as this process last counted them, so a write need not list it again. */
let tally: { dir: string; bytes: number } | null = null;
let trimming: Promise<void> = Promise.resolve();

/** Removes the least recently used cache files (by mtime, which a hit refreshes) until the folder fits its cap. */
async function trim(dir: string, keep: string, cap: number): Promise<number> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.bin'));
  const files = (
    await Promise.all(
      names.map(async (n) => {
        const st = await stat(join(dir, n)).catch(() => null);
        return st?.isFile() ? { path: join(dir, n), size: st.size, used: st.mtimeMs } : null;
      }),
    )
  ).filter((f) => f !== null);
  let total = files.reduce((a, f) => a + f.size, 0);
  for (const f of files.sort((a, b) => a.used - b.used)) {
    if (total <= cap) break;
    if (f.path === keep) continue;
    if (
      await unlink(f.path).then(
        () => true,
        () => false,
      )
    )
      total -= f.size;
  }
  return total;
}

function noteWritten(dir: string, file: string, bytes: number): Promise<void> {
  trimming = trimming
    .then(async () => {
      const cap = cacheCapBytes();
      if (tally?.dir === dir) tally.bytes += bytes;
      if (tally?.dir !== dir || tally.bytes > cap) tally = { dir, bytes: await trim(dir, file, cap) };
    })
    .catch(() => undefined);
  return trimming;
}

async function toDisk(dir: string, file: string, t: SymbolTable): Promise<void> {
  if (!(t.store instanceof PackedNames)) return;
  let tmp: string | undefined;
  try {
    await mkdir(dir, { recursive: true });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(t.size, 4);
    // A fresh name, created exclusively and never through a symlink: with no home the cache is under a shared /tmp.
    const name = `${file}.${crypto().randomBytes(8).toString('hex')}.tmp`;
    const { offsets, bytes } = t.store;
    const view = (a: Float64Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    // Written piece by piece: one concatenated buffer would be another copy of all the names.
    const parts = [head, view(t.addrs), view(t.ends), view(offsets), bytes];
    const fh = await open(name, CREATE_NEW, 0o600);
    // Ours from here on: removed again if anything below fails.
    tmp = name;
    try {
      const { bytesWritten } = await fh.writev(parts);
      if (bytesWritten !== parts.reduce((a, p) => a + p.length, 0)) throw new Error('short write');
    } finally {
      await fh.close();
    }
    await rename(name, file);
    tmp = undefined;
    await noteWritten(
      dir,
      file,
      parts.reduce((a, p) => a + p.length, 0),
    );
  } catch {
    // A read-only home or a full disk only costs the next run another `nm`; no temp file stays.
    if (tmp) await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Symbols of a binary, keyed by (file identity, size, mtime) so a rebuilt binary is read again and one
 * file reached by many names (links, `..`) is read once; kept in memory for the process and on disk
 * across runs, because `nm -C` on `node` takes ~0.4 s. `symtab: false` (from its ELF headers) skips the
 * `nm` that would find no static symbols.
 */
export async function symbolsFor(path: string, signal?: AbortSignal, symtab?: boolean): Promise<SymbolTable> {
  const st = await stat(path);
  if (!st.isFile()) throw new Error(`not a regular file: ${path}`);
  const key = `${st.dev}:${st.ino}\0${st.size}\0${st.mtimeMs}`;
  let p = memory.get(key);
  if (p) {
    memory.delete(key);
    memory.set(key, p);
  } else {
    p = (async () => {
      const dir = cacheFolder('symbols');
      const file = dir ? join(dir, crypto().createHash('sha1').update(key).digest('hex') + '.v2.bin') : '';
      const cached = dir ? await fromDisk(file) : null;
      if (cached) return cached;
      const t = await readSymbols(path, signal, symtab);
      if (!dir || t.size === 0) return t;
      await toDisk(dir, file, t);
      // Reopened from the file, the names leave memory too.
      return (await fromDisk(file)) ?? t;
    })();
    memory.set(key, p);
    for (const old of memory.keys()) {
      if (memory.size <= MEMORY_ENTRIES) break;
      memory.delete(old);
    }
    p.catch(() => memory.delete(key));
  }
  return p;
}
