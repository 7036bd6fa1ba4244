import { join } from 'node:path';
import { appendSync } from '../../core/safeWrite';
import { liveChunkFileName, writeLiveInfo } from '../run/cpuChunks';
import type { CpuProfile } from './cpuprofile';

/**
 * How often a live attach cuts the target's profile (ms): the live view shows a piece only once it is cut, as a
 * launched run's preload does (liveChunks.ts).
 */
export const LIVE_ATTACH_CHUNK_MS = 1000;

/**
 * An attach watched live: each piece the session receives is appended to the run folder as a live run's chunk
 * (`live-<pid>.jsonl`, the pid as the target says it, 0 if it would not), so the live reader, the live view and the CLI's
 * live table read an attached process as they read a launched one. The pieces are the ones the session merges for
 * its final profile, so the profile at detach is the union of what the live view showed.
 */
export function liveAttachWriter(dir: string, startedAt: number): (part: CpuProfile, pid: number | undefined) => void {
  writeLiveInfo(dir, { mode: 'attach', startedAt: new Date(startedAt).toISOString(), events: [] });
  return (part, pid) => appendSync(join(dir, liveChunkFileName(pid ?? 0)), `${JSON.stringify({ profile: part })}\n`);
}
