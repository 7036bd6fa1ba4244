import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSymbols } from './nm';
import { SymbolTable } from './table';

const memory = new Map<string, Promise<SymbolTable>>();

/** `NODE_FLAME_CACHE=off` disables the disk cache; any other value is the cache folder. */
function cacheDir(): string | null {
  const env = process.env.NODE_FLAME_CACHE;
  if (env === 'off') return null;
  if (env) return join(env, 'symbols');
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir());
  return join(base, 'node-flame', 'symbols');
}

/** Layout: u32 count, count × f64 start, count × f64 end, then the names joined by newlines. */
async function fromDisk(file: string): Promise<SymbolTable | null> {
  try {
    const buf = await readFile(file);
    const n = buf.readUInt32LE(0);
    const bytes = 8 + n * 16;
    if (buf.length < bytes) return null;
    const nums = new Float64Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + bytes));
    const names = n ? buf.toString('utf8', bytes).split('\n') : [];
    if (names.length !== n) return null;
    return new SymbolTable(nums.slice(0, n), nums.slice(n), names);
  } catch {
    return null;
  }
}

async function toDisk(dir: string, file: string, t: SymbolTable): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(t.size, 0);
    const tmp = `${file}.${process.pid}.tmp`;
    const names = Buffer.from(t.names.map((x) => x.replace(/\n/g, ' ')).join('\n'), 'utf8');
    await writeFile(tmp, Buffer.concat([head, Buffer.from(t.addrs.buffer, t.addrs.byteOffset, t.size * 8), Buffer.from(t.ends.buffer, t.ends.byteOffset, t.size * 8), names]));
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
      const file = dir ? join(dir, createHash('sha1').update(key).digest('hex') + '.bin') : '';
      const cached = dir ? await fromDisk(file) : null;
      if (cached) return cached;
      const t = await readSymbols(path, signal);
      if (dir && t.size > 0) await toDisk(dir, file, t);
      return t;
    })();
    memory.set(key, p);
    p.catch(() => memory.delete(key));
  }
  return p;
}
