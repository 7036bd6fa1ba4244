import { join } from 'node:path';
import { HEAP_NOTE_KEY, type HeapProfileNote } from '../../core/importers/heapprofile';
import { appendSync, replaceFileSync } from '../../core/safeWrite';
import { liveChunkFileName, writeLiveInfo } from '../run/cpuChunks';
import { ATTACH_HEAP_MODE, liveHeapFileName } from '../run/liveHeapFile';
import type { RunEvent } from '../run/runFolder';
import type { CpuProfile } from '../run/cpuProfileMerge';
import type { SamplingHeapProfile } from './session';

/**
 * How often a live attach cuts the target's profile (ms): the live view shows a piece only once it is cut, as a
 * launched run's preload does (liveChunks.ts).
 */
export const LIVE_ATTACH_CHUNK_MS = 1000;

export interface LiveAttach {
  /** The session's `onPart`: appends the piece to the run folder. */
  onPart: (part: CpuProfile, pid: number | undefined) => void;
  /** The session's `onHeap`: the heap profile so far replaces the last one in the run folder. */
  onHeap: (profile: SamplingHeapProfile, pid: number | undefined) => void;
  /** A moment the user marks ("before the fix"): on the live Timeline now, in run.json at the end. */
  mark: (label: string) => void;
  /** The marks so far, for run.json (saveAttachRun's `events`). */
  readonly events: RunEvent[];
}

/**
 * An attach watched live (a heap attach: its heap profile so far, replaced each second): each piece the session receives is appended to the run folder as a live run's chunk
 * (`live-<pid>.jsonl`, the pid as the target says it, 0 if it would not), so the live reader, the live view and
 * the CLI's live table read an attached process as they read a launched one. The pieces are the ones the session
 * merges for its final profile, so the profile at detach is the union of what the live view showed.
 */
export function liveAttach(dir: string, startedAt: number, heap?: HeapProfileNote): LiveAttach {
  const events: RunEvent[] = [];
  const info = () => writeLiveInfo(dir, { mode: heap ? ATTACH_HEAP_MODE : 'attach', startedAt: new Date(startedAt).toISOString(), events });
  info();
  return {
    onPart: (part, pid) => appendSync(join(dir, liveChunkFileName(pid ?? 0)), `${JSON.stringify({ profile: part })}\n`),
    // A heap profile is not cut in pieces: each copy holds every sample so far, so the newest replaces the last.
    onHeap: (profile, pid) =>
      replaceFileSync(join(dir, liveHeapFileName(pid ?? 0)), JSON.stringify({ ...profile, ...(heap ? { [HEAP_NOTE_KEY]: heap } : {}) })),
    mark: (label) => {
      events.push({ kind: 'mark', at: new Date().toISOString(), label: label.slice(0, 200) });
      info();
    },
    events,
  };
}
