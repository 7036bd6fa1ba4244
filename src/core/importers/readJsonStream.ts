import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { ProfileError } from '../model';
import { CorruptJson, JsonScanner, type Schema } from './jsonScan';

/** Reads a JSON profile by `schema` without ever holding it as one string; `chunkSize` is for tests of chunk boundaries. */
export async function readJsonStream(
  path: string,
  schema: Schema,
  corrupt: (why: string) => string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number } = {},
): Promise<unknown> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
  const scanner = new JsonScanner(schema, size);
  let read = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: opts.chunkSize ?? 1 << 20 })) {
      opts.signal?.throwIfAborted();
      scanner.feed(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (size > 0) opts.onProgress?.(Math.min(1, read / size));
    }
    return scanner.end();
  } catch (e) {
    if (e instanceof CorruptJson) throw new ProfileError(corrupt(e.message), path);
    if (e instanceof ProfileError || opts.signal?.aborted) throw e;
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
}
