import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { heapProfileToModel } from '../../core/importers/heapprofile';
import { ProfileError, type Profile } from '../../core/model';
import { NOTHING_NEW, type LiveInfo } from './cpuChunks';
import { liveRun } from './liveRun';
import { loadRunProfile, type RunLoadOptions } from './runProfile';
import type { OpenedRun } from './runFolder';
import { ATTACH_HEAP_MODE, LIVE_HEAP_NAME } from './liveHeapFile';

const pidOf = (name: string): number | undefined => {
  const m = LIVE_HEAP_NAME.exec(name.slice(name.lastIndexOf('/') + 1));
  return m ? Number(m[1]) : undefined;
};

/** The copies last answered (each file's size and time), by run folder: a read finding the same says so. */
const answered = new Map<string, string>();

export function forgetLiveHeap(dir: string): void {
  answered.delete(dir);
}

/**
 * A live heap run or attach read as it grows: each process's newest heap profile, every process merged as the run at
 * its end will be. Each copy holds every sample so far (allocated, or still held), so the view shows the newest, not a sum.
 */
export async function loadLiveHeap(
  dir: string,
  li: Partial<LiveInfo>,
  opts: RunLoadOptions & { onlyNew?: boolean } = {},
): Promise<{ profile: Profile; run: OpenedRun }> {
  let names: string[] = [];
  try {
    names = readdirSync(dir)
      .filter((n) => LIVE_HEAP_NAME.test(n))
      .sort();
  } catch {
    // the run folder went away
  }
  // Each file looked at once: its size and time say whether the copy is new.
  const stats = names
    .map((n) => ({ f: join(dir, n), st: statSync(join(dir, n), { throwIfNoEntry: false }) }))
    .filter((x) => x.st?.isFile());
  const files = stats.map((x) => x.f);
  if (!files.length) throw new ProfileError(NOTHING_NEW, dir);
  const seen = stats.map(({ f, st }) => `${f}:${st!.size}:${st!.mtimeMs}`).join('|');
  if (opts.onlyNew && answered.get(dir) === seen) throw new ProfileError(NOTHING_NEW, dir);
  answered.set(dir, seen);
  const run = liveRun(dir, li, li.mode === ATTACH_HEAP_MODE ? 'attach' : 'heap');
  // Each copy is written whole (a temp file renamed over the last), so a read never sees half of one.
  const read = (file: string): Profile => heapProfileToModel(JSON.parse(readFileSync(file, 'utf8')), file);
  const profile = await loadRunProfile(run, { ...opts, liveParts: { files, pidOf, read } });
  return { profile, run };
}
