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
  try {
    fh = await open(path, 'r');
    // One buffer read into again and again: the scanner copies what it keeps, and no chunk is left for the GC.
    const buf = Buffer.allocUnsafe(opts.chunkSize ?? 1 << 18);
    for (;;) {
      opts.signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      scanner.feed(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      read += bytesRead;
      if (size > 0) opts.onProgress?.(Math.min(1, read / size));
    }
    return scanner.end();
  } catch (e) {
    if (e instanceof CorruptJson) throw new ProfileError(corrupt(e.message), path);
    if (e instanceof ProfileError || opts.signal?.aborted) throw e;
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  } finally {
    await fh?.close();
  }
}
