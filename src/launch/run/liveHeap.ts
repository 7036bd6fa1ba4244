import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { heapprofileImporter } from '../../core/importers/heapprofile';
import { ProfileError, type Profile } from '../../core/model';
import { NOTHING_NEW, type LiveInfo } from './cpuChunks';
import { readProcessRecords, runProcesses } from './processRecords';
import type { ImportOptions } from '../../core/importers';
import type { OpenedRun, RunEvent } from './runFolder';

const PATTERN = /^live-heap-(\d+)\.heapprofile$/;

/** A live heap attach's file: the target's sampling heap profile so far, replaced about once a second. */
export function liveHeapFileName(pid: number): string {
  return `live-heap-${pid}.heapprofile`;
}

/** The copy of each live heap file last answered (its size and time), by run folder: a read finding the same says so. */
const answered = new Map<string, string>();

export function forgetLiveHeap(dir: string): void {
  answered.delete(dir);
}

/**
 * A live heap attach read as it grows: its newest heap profile, as the heap profile at detach will be read. Each copy
 * holds every sample so far (allocated, or still held), so the view shows the newest, not a sum.
 */
export async function loadLiveHeap(
  dir: string,
  li: Partial<LiveInfo>,
  opts: ImportOptions & { onlyNew?: boolean } = {},
): Promise<{ profile: Profile; run: OpenedRun }> {
  let name: string | undefined;
  try {
    name = readdirSync(dir).find((n) => PATTERN.test(n));
  } catch {
    // the run folder went away
  }
  const path = name && join(dir, name);
  const st = path ? statSync(path, { throwIfNoEntry: false }) : undefined;
  if (!path || !st?.isFile()) throw new ProfileError(NOTHING_NEW, dir);
  const seen = `${st.size}:${st.mtimeMs}`;
  if (opts.onlyNew && answered.get(dir) === seen) throw new ProfileError(NOTHING_NEW, dir);
  answered.set(dir, seen);
  const profile = await heapprofileImporter.load(path, opts);
  const run: OpenedRun = {
    dir,
    info: {
      version: 1,
      mode: 'attach',
      ...(li.startedAt ? { startedAt: li.startedAt } : {}),
      ...(li.events?.length ? { events: li.events as RunEvent[] } : {}),
      processes: runProcesses(readProcessRecords(dir), []),
    },
  };
  return { profile, run };
}
