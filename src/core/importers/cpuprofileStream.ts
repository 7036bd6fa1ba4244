import * as l10n from '@vscode/l10n';
import { CpuNodeTable } from './cpuprofileNodes';
import type { Schema } from './jsonScan';
import type { LentArrays } from './numberList';
import { readJsonStream } from './readJsonStream';

// A .cpuprofile can pass V8's ~512 MB string limit, and one JSON.parse of it holds the whole file as a string plus
// a JS number per sample: the nodes are JSON.parse'd a chunk's worth at a time into a table of arrays, `samples` and `timeDeltas` go
// straight into typed arrays, and every other value is skipped unread.
const profileKeys: Schema = {
  // Each node goes to the table as it is parsed (see cpuprofileNodes.ts).
  nodes: { each: 'keep', sink: () => new CpuNodeTable() },
  samples: 'nums',
  // The deltas are only ever summed: read as the times themselves (µs from the start), no array of deltas is kept.
  timeDeltas: { sums: 'timeSums' },
  startTime: 'small',
  endTime: 'small',
};
/** The inspector's `Profiler.stop` result wraps the profile in `{ profile }`. */
export const cpuProfileSchema: Schema = { ...profileKeys, profile: { object: profileKeys } };

/** A .cpuprofile read by streaming: `samples` as a typed array, `timeDeltas` as `timeSums` (their running sums). */
export function readCpuProfileStream(
  path: string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number; lent?: LentArrays } = {},
): Promise<unknown> {
  return readJsonStream(
    path,
    cpuProfileSchema,
    (why) => l10n.t('not valid JSON, the .cpuprofile is truncated or corrupt ({0})', why),
    opts,
  );
}
