import { readLoopFile } from './runTimeline';
import { loopFileName } from '../preload/loopDelay';
import { join } from 'node:path';
import { isEpochMs, partTimeline, type MergePart } from '../../core/model';
import type { RunInfo } from './runFolder';

/**
 * Puts the processes of a run on one time axis: sets each part's `startMs` (when its timeline's 0 is) on a
 * clock all parts share, and returns that clock's time of the run's 0 (the axis origin).
 *
 * What each mode gives:
 * - cpu-prof: a .cpuprofile's `startTime` is V8's monotonic clock (CLOCK_MONOTONIC on Linux, the clock of
 *   `process.hrtime`), the same in every process of the machine; each process's record (run.json
 *   `processes[].clock`) pairs that clock with the wall clock at one instant, which turns it into epoch ms.
 * - prof: a tick log counts µs from its own logger's start and holds no absolute time; the preload compiles a
 *   function named after the wall-clock time (preloadLogClock.ts) and the importer turns the log's first tick
 *   into epoch ms from it (`meta.startTime`).
 * - perf: one perf.data holds every process on perf's own clock already: nothing to do here.
 * - heap: no sample times.
 * The run's 0 is then when the launcher started the command (run.json `startedAt`, also the Timeline's "app
 * start" marker), so the run's markers and every process (even read alone, `--pid`) share the axis.
 * Older runs lack the clock pair or the mark: .cpuprofiles alone still share the monotonic clock (0 is then the
 * earliest profile's start); otherwise a process's start (its `performance.timeOrigin`, else its recorded
 * start) stands for its first sample, some 30–70 ms early.
 */
export async function placeOnRunClock(dir: string, run: Partial<RunInfo>, parts: MergePart[]): Promise<number | undefined> {
  const procs = new Map((run.processes ?? []).map((p) => [p.pid, p]));
  const pair = (run.processes ?? []).map((p) => p.clock).find((c) => c && Number.isFinite(c.epochMs) && Number.isFinite(c.monoMs));
  const mono = (p: MergePart) =>
    p.profile.format === 'cpuprofile' && (p.profile.meta.startTime ?? 0) > 0 ? p.profile.meta.startTime : undefined;
  const exact = (p: MergePart): number | undefined => {
    const t = p.profile.meta.startTime;
    if (isEpochMs(t)) return t;
    const m = mono(p);
    return m !== undefined && pair ? pair.epochMs + (m - pair.monoMs) : undefined;
  };
  const timed = parts.filter((p) => partTimeline(p));
  if (!timed.length) return undefined;
  const runStart = Date.parse(run.startedAt ?? '');
  const originOf = (starts: number[]) => Math.min(...starts, ...(Number.isFinite(runStart) ? [runStart] : []));
  if (timed.every((p) => exact(p) !== undefined)) {
    for (const p of timed) p.startMs = exact(p);
    return originOf(timed.map((p) => p.startMs!));
  }
  if (timed.every((p) => mono(p) !== undefined)) {
    for (const p of timed) p.startMs = mono(p);
    return Math.min(...timed.map((p) => p.startMs!));
  }
  for (const p of timed) {
    const proc = p.pid !== undefined ? procs.get(p.pid) : undefined;
    const loop = p.pid !== undefined ? await readLoopFile(join(dir, loopFileName(p.pid))) : undefined;
    const approx = loop?.timeOrigin ?? Date.parse(proc?.startedAt ?? '');
    p.startMs = exact(p) ?? (Number.isFinite(approx) ? approx : undefined);
  }
  const known = timed.map((p) => p.startMs).filter((t): t is number => t !== undefined);
  return known.length === timed.length ? originOf(known) : undefined;
}
