import { statSync } from 'node:fs';
import { join } from 'node:path';
import { JitMap, type SavedJit } from '../../core/importers/perf/jitMaps';
import { readJitDumpFrom } from '../../core/importers/perf/jitDump';
import { TimedJitMap } from '../../core/importers/perf/jitTimeline';

/** A process's code records as last read: its jitdump read on from `end`, its map read again only when it grew. */
interface Kept {
  timed?: TimedJitMap;
  end: number;
  map?: JitMap;
  mapSize: number;
}

/**
 * What each live run's reads have read of its processes' code records, by run (the caller forgets a run at its end).
 * A live perf run's text is parsed in time order, so one TimedJitMap per process serves every read, extended by
 * what V8 wrote since: each read reads what is new, where reading every jitdump whole each second cost the CLI more
 * than the samples did.
 */
const kept = new Map<string, Map<number, Kept>>();

export function forgetLiveJitMaps(run: string): void {
  kept.delete(run);
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
};

/**
 * The code records of a perf run's processes while they run (read, never moved): each one's jitdump in its cwd and
 * its `/tmp/perf-<pid>.map`. A live perf run's JIT frames are named from these as the finished run's are from its
 * folder's copies, by the code at each address at the sample's time; perf's own name knows no time, so it can be
 * stale where V8 reused an address. `run` keeps what was read for the next read (see `kept`).
 */
export async function liveJitMaps(processes: { pid: number; cwd?: string }[], run?: string): Promise<Map<number, SavedJit>> {
  const out = new Map<number, SavedJit>();
  let byPid = run === undefined ? undefined : kept.get(run);
  if (run !== undefined && !byPid) kept.set(run, (byPid = new Map()));
  for (const { pid, cwd } of processes) {
    const k: Kept = byPid?.get(pid) ?? { end: 0, mapSize: -1 };
    byPid?.set(pid, k);
    if (cwd) {
      const r = await readJitDumpFrom(join(cwd, `jit-${pid}.dump`), k.end);
      if (r) {
        if (k.timed) k.timed.extend(r.loads);
        else k.timed = new TimedJitMap(r.loads);
        k.end = r.end;
      }
    }
    const mapPath = `/tmp/perf-${pid}.map`;
    const size = sizeOf(mapPath);
    if (size !== k.mapSize) {
      k.map = (await JitMap.read(mapPath)) ?? undefined;
      k.mapSize = size;
    }
    const timed = k.timed;
    if (timed?.size || k.map) out.set(pid, { ...(timed?.size ? { timed } : {}), ...(k.map ? { map: k.map } : {}) });
  }
  return out;
}
