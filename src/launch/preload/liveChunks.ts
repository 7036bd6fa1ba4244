import { join } from 'node:path';
import type * as Inspector from 'node:inspector';
import { threadId } from 'node:worker_threads';
import { appendWhileLive } from '../run/runLiveness';
import { liveChunkFileName } from '../run/cpuChunks';
import { CpuProfileMerger, type CpuProfile } from '../run/cpuProfileMerge';

/** How often the profile is cut into a chunk (ms). */
export const LIVE_CHUNK_MS = 1000;

/**
 * A live run's in-process profile, cut into chunks: every LIVE_CHUNK_MS the profile is stopped and started again
 * (the inspector's Profiler has no way to take what it has recorded without stopping: one session holds one
 * profile), the piece is appended to `live-<pid>.jsonl` for the viewer, and merged here too. `take` stops the last
 * piece and answers the merge of all of them: the process's `.cpuprofile` is exactly the union of its chunks.
 * Inspector calls answer synchronously in-process, so no JavaScript runs between a stop and the next start.
 */
export function profileInChunks(session: Inspector.Session, dir: string): { take: () => CpuProfile | undefined } {
  keepProfilerAlive();
  const file = join(dir, liveChunkFileName(process.pid, threadId));
  const merger = new CpuProfileMerger();
  let writing = true;
  const cut = (restart: boolean): void => {
    session.post('Profiler.stop', (err, r) => {
      if (err || !r?.profile) return;
      const chunk = r.profile as unknown as CpuProfile;
      merger.add(chunk);
      if (writing) appendWhileLive(dir, file, `${JSON.stringify({ profile: chunk })}\n`);
      else writing = false;
    });
    if (restart) session.post('Profiler.start');
  };
  const timer = setInterval(() => cut(true), LIVE_CHUNK_MS);
  timer.unref();
  return {
    take: () => {
      clearInterval(timer);
      cut(false);
      return merger.chunks ? merger.profile() : undefined;
    },
  };
}

/**
 * The inspector disposes of V8's CPU profiler when its last profile stops, and a new one logs every compiled
 * function again on start: 13–30 ms of the main thread each second for the guide's Express app. A console profile
 * (the inspector's own console, whatever the app did to `console`) is a second profile of the same session, so
 * the profiler and its code map live on between chunks: the stop and start then take under a millisecond. It is
 * never ended nor read (it goes with the process), and it holds no more than a `--cpu-prof` run's one profile.
 */
function keepProfilerAlive(): void {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('node:inspector') as typeof Inspector).console.profile(`node-flame live ${process.pid}`);
  } catch {
    // no inspector console: each chunk restarts the profiler, slower but the same samples
  }
}
