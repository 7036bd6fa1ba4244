import { createHash } from 'node:crypto';
import { mkdir, open, rename, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSymbols } from './nm';
import { FileNames, PackedNames, SymbolTable } from './table';

const memory = new Map<string, Promise<SymbolTable>>();

/** `NODE_FLAME_CACHE=off` disables the disk cache; any other value is the cache folder. */
function cacheDir(): string | null {
  const env = process.env.NODE_FLAME_CACHE;
  if (env === 'off') return null;
  if (env) return join(env, 'symbols');
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir());
  return join(base, 'node-flame', 'symbols');
}

const MAGIC = 0x3253464e; // "NFS2"

/**
 * Layout: u32 magic, u32 count, count × f64 start, count × f64 end, (count + 1) × u32 name offsets,
 * then the names' UTF-8 bytes. Only the numbers are read up front; names stay in the file.
 */
async function fromDisk(file: string): Promise<SymbolTable | null> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(8);
    await fh.read(head, 0, 8, 0);
    const n = head.readUInt32LE(4);
    if (head.readUInt32LE(0) !== MAGIC) return null;
    const numBytes = n * 20 + 4;
    const nums = new ArrayBuffer(numBytes);
    const { bytesRead } = await fh.read(new Uint8Array(nums), 0, numBytes, 8);
    if (bytesRead !== numBytes) return null;
    const offsets = new Uint32Array(nums, n * 16, n + 1);
    const base = 8 + numBytes;
    if ((await fh.stat()).size !== base + offsets[n]) return null;
    return new SymbolTable(new Float64Array(nums, 0, n), new Float64Array(nums, n * 8, n), new FileNames(file, base, offsets));
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

async function toDisk(dir: string, file: string, t: SymbolTable): Promise<void> {
  if (!(t.store instanceof PackedNames)) return;
  try {
    await mkdir(dir, { recursive: true });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(t.size, 4);
    const tmp = `${file}.${process.pid}.tmp`;
    const { offsets, bytes } = t.store;
    const view = (a: Float64Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    // Written piece by piece: one concatenated buffer would be another copy of all the names.
    const fh = await open(tmp, 'w');
    try {
      const parts = [head, view(t.addrs), view(t.ends), view(offsets), bytes];
      const { bytesWritten } = await fh.writev(parts);
      if (bytesWritten !== parts.reduce((a, p) => a + p.length, 0)) throw new Error('short write');
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch {
    // A read-only home only costs the next run another `nm`.
  }
}

/**
 * Symbols of a binary, keyed by (path, size, mtime) so a rebuilt binary is read again; kept in
 * memory for the process and on disk across runs, because `nm -C` on `node` takes ~0.4 s.
 */
export async function symbolsFor(path: string, signal?: AbortSignal): Promise<SymbolTable> {
  const st = await stat(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  let p = memory.get(key);
  if (!p) {
    p = (async () => {
      const dir = cacheDir();
      const file = dir ? join(dir, createHash('sha1').update(key).digest('hex') + '.v2.bin') : '';
      const cached = dir ? await fromDisk(file) : null;
      if (cached) return cached;
      const t = await readSymbols(path, signal);
      if (!dir || t.size === 0) return t;
      await toDisk(dir, file, t);
      // Reopened from the file, the names leave memory too.
      return (await fromDisk(file)) ?? t;
    })();
    memory.set(key, p);
    p.catch(() => memory.delete(key));
  }
  return p;
}
