import { open, stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { ProfileError } from '../model';
import { CorruptJson, JsonScanner, type Schema } from './jsonScan';
import type { LentArrays } from './numberList';

/**
 * Reads a JSON profile by `schema` without ever holding it as one string; `chunkSize` is for tests of chunk boundaries,
 * `arrayKey` names the key a top-level array is read as (see JsonScanner).
 */
export async function readJsonStream(
  path: string,
  schema: Schema,
  corrupt: (why: string) => string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number; arrayKey?: string; lent?: LentArrays } = {},
): Promise<unknown> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
  const scanner = new JsonScanner(schema, size, opts.arrayKey, opts.lent);
  let read = 0;
  let fh;
  let pending: Promise<{ bytesRead: number; buffer: Buffer }> | undefined;
  try {
    fh = await open(path, 'r');
    const file = fh;
    // Two buffers read into again and again: the scanner copies what it keeps, and no chunk is left for the GC. The
    // next chunk is read while this one is scanned: waiting for each read in turn left a 32 MB profile's process idle
    // for a good part of its time.
    const chunk = opts.chunkSize ?? 1 << 18;
    const bufs = [Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk)];
    let next = 0;
    const readNext = () => file.read(bufs[next], 0, chunk, null);
    pending = readNext();
    for (;;) {
      opts.signal?.throwIfAborted();
      const { bytesRead, buffer } = await pending;
      pending = undefined;
      if (bytesRead === 0) break;
      next ^= 1;
      pending = readNext();
      scanner.feed(bytesRead === chunk ? buffer : buffer.subarray(0, bytesRead));
      read += bytesRead;
      if (size > 0) opts.onProgress?.(Math.min(1, read / size));
    }
    return scanner.end();
  } catch (e) {
    if (e instanceof CorruptJson) throw new ProfileError(corrupt(e.message), path);
    if (e instanceof ProfileError || opts.signal?.aborted) throw e;
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  } finally {
    // A read still under way when the scan stopped (corrupt input, an abort) ends before the file closes.
    await pending?.catch(() => undefined);
    await fh?.close();
  }
}
