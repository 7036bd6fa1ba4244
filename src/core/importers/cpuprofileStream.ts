import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { ProfileError } from '../model';
import { CorruptJson, JsonScanner, type Schema } from './jsonScan';

// A .cpuprofile can pass V8's ~512 MB string limit, and one JSON.parse of it holds the whole file as a string plus
// a JS number per sample: each node object (small) is JSON.parse'd on its own, `samples` and `timeDeltas` go
// straight into typed arrays, and every other value is skipped unread.
const profileKeys: Schema = {
  nodes: { each: 'keep' },
  samples: 'nums',
  // The deltas are only ever summed: read as the times themselves (µs from the start), no array of deltas is kept.
  timeDeltas: { sums: 'timeSums' },
  startTime: 'small',
  endTime: 'small',
};
/** The inspector's `Profiler.stop` result wraps the profile in `{ profile }`. */
export const cpuProfileSchema: Schema = { ...profileKeys, profile: { object: profileKeys } };

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

/** A .cpuprofile read by streaming, `samples`/`timeDeltas` as typed arrays. */
export function readCpuProfileStream(
  path: string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number } = {},
): Promise<unknown> {
  return readJsonStream(
    path,
    cpuProfileSchema,
    (why) => l10n.t('not valid JSON, the .cpuprofile is truncated or corrupt ({0})', why),
    opts,
  );
}
