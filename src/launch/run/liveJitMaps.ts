import { join } from 'node:path';
import { JitMap, type SavedJit } from '../../core/importers/perf/jitMaps';
import { TimedJitMap } from '../../core/importers/perf/jitTimeline';

/**
 * The code records of a perf run's processes while they run (read, never moved): each one's jitdump in its cwd and
 * its `/tmp/perf-<pid>.map`. A live slice's JIT frames are named from these as the finished run's are from its
 * folder's copies, by the code at each address at the sample's time; perf's own name knows no time, so it can be
 * stale where V8 reused an address.
 */
export async function liveJitMaps(processes: { pid: number; cwd?: string }[]): Promise<Map<number, SavedJit>> {
  const out = new Map<number, SavedJit>();
  for (const { pid, cwd } of processes) {
    const timed = cwd ? await TimedJitMap.read(join(cwd, `jit-${pid}.dump`)) : null;
    const map = await JitMap.read(`/tmp/perf-${pid}.map`);
    if (timed?.size || map) out.set(pid, { ...(timed?.size ? { timed } : {}), ...(map ? { map } : {}) });
  }
  return out;
}
