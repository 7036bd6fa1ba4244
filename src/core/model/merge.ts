import { addLineHits } from './processes';
import { ProfileBuilder, type LineHits, type Profile, type ProfileMeta } from './profile';

/** One profile of a run (one process, or one thread of it) and the thread level it gets in the merge. */
export interface MergePart {
  profile: Profile;
  /** Name of its level in the merged tree, e.g. `pid 4242 server.js`. */
  thread: string;
  pid?: number;
  tid?: number;
}

/**
 * Several profiles of one run (the processes of a command, each its own file) as one: each part
 * becomes a thread level under the root, functions are merged by identity across parts, and line
 * hits add up, so views by function, CodeLens and line heat cover every process.
 */
export function mergeProfiles(parts: MergePart[], meta: ProfileMeta): Profile {
  const b = new ProfileBuilder(parts[0]?.profile.format ?? 'cpuprofile', meta);
  // Kept per part too, so the viewer's process picker shows the line heat of the processes it keeps.
  const byThread = new Map<string, LineHits>();
  for (const part of parts) {
    const p = part.profile;
    const ids = p.frames.map((f) => b.frame(f));
    p.tree.forEachStack((stack, self, selfTime) => {
      b.sample(
        stack.map((f) => ids[f]),
        self,
        selfTime,
        part.thread,
      );
    });
    b.threadInfo(part.thread, { pid: part.pid, tid: part.tid });
    for (const [file, lines] of p.lineHits) for (const [line, h] of lines) b.lineHit(file, line, h.self, h.total);
    if (!byThread.has(part.thread)) byThread.set(part.thread, new Map());
    addLineHits(byThread.get(part.thread)!, p.lineHits);
    for (const w of p.warnings) b.warn(w);
  }
  const merged = b.build();
  if (merged.threads.length > 1) merged.threadLineHits = byThread;
  return merged;
}
