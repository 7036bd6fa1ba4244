import { join } from 'node:path';
import { appendSync } from '../../core/safeWrite';
import { liveChunkFileName, writeLiveInfo } from '../run/cpuChunks';
import type { RunEvent } from '../run/runFolder';
import type { CpuProfile } from '../run/cpuProfileMerge';

/**
 * How often a live attach cuts the target's profile (ms): the live view shows a piece only once it is cut, as a
 * launched run's preload does (liveChunks.ts).
 */
export const LIVE_ATTACH_CHUNK_MS = 1000;

export interface LiveAttach {
  /** The session's `onPart`: appends the piece to the run folder. */
  onPart: (part: CpuProfile, pid: number | undefined) => void;
  /** A moment the user marks ("before the fix"): on the live Timeline now, in run.json at the end. */
  mark: (label: string) => void;
  /** The marks so far, for run.json (saveAttachRun's `events`). */
  readonly events: RunEvent[];
}

/**
 * An attach watched live: each piece the session receives is appended to the run folder as a live run's chunk
 * (`live-<pid>.jsonl`, the pid as the target says it, 0 if it would not), so the live reader, the live view and
 * the CLI's live table read an attached process as they read a launched one. The pieces are the ones the session
 * merges for its final profile, so the profile at detach is the union of what the live view showed.
 */
export function liveAttach(dir: string, startedAt: number): LiveAttach {
  const events: RunEvent[] = [];
  const info = () => writeLiveInfo(dir, { mode: 'attach', startedAt: new Date(startedAt).toISOString(), events });
  info();
  return {
    onPart: (part, pid) => appendSync(join(dir, liveChunkFileName(pid ?? 0)), `${JSON.stringify({ profile: part })}\n`),
    mark: (label) => {
      events.push({ kind: 'mark', at: new Date().toISOString(), label: label.slice(0, 200) });
      info();
    },
    events,
  };
}
