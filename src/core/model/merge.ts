import { ProfileBuilder, type Profile, type ProfileMeta } from './profile';

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
    for (const w of p.warnings) b.warn(w);
  }
  return b.build();
}
