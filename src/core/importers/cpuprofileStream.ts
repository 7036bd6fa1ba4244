import * as l10n from '@vscode/l10n';
import { CpuNodeTable } from './cpuprofileNodes';
import type { Schema } from './jsonScan';
import type { LentArrays } from './numberList';
import { readJsonStream } from './readJsonStream';

// A .cpuprofile can pass V8's ~512 MB string limit, and one JSON.parse of it holds the whole file as a string plus
// a JS number per sample: the nodes are JSON.parse'd a chunk's worth at a time into a table of arrays, `samples` and `timeDeltas` go
// straight into typed arrays, and every other value is skipped unread.
const profileKeys = (packed: boolean): Schema => ({
  // Each node goes to the table as it is parsed (see cpuprofileNodes.ts).
  nodes: { each: 'keep', sink: () => new CpuNodeTable() },
  samples: 'nums',
  // The deltas are only ever summed: read as the times themselves (µs from the start), no array of deltas is kept.
  // Packed (PackedSums), they take four bytes a sample where a Float64Array takes eight, and become the timeline's
  // packed times as they are.
  timeDeltas: { sums: 'timeSums', packed },
  startTime: 'small',
  endTime: 'small',
});
/** The inspector's `Profiler.stop` result wraps the profile in `{ profile }`. */
const schema = (packed: boolean): Schema => ({ ...profileKeys(packed), profile: { object: profileKeys(packed) } });
export const cpuProfileSchema: Schema = schema(false);
const packedSchema: Schema = schema(true);

/**
 * A .cpuprofile read by streaming: `samples` as a typed array, `timeDeltas` as `timeSums` (their running sums), packed
 * (PackedSums) with `packTimes` while they are whole µs.
 */
export function readCpuProfileStream(
  path: string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number; lent?: LentArrays; packTimes?: boolean } = {},
): Promise<unknown> {
  return readJsonStream(
    path,
    opts.packTimes ? packedSchema : cpuProfileSchema,
    (why) => l10n.t('not valid JSON, the .cpuprofile is truncated or corrupt ({0})', why),
    opts,
  );
}
