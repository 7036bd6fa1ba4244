import type { LiveInfo } from './cpuChunks';
import { readProcessRecords, runProcesses } from './processRecords';
import type { OpenedRun, RunEvent, RunInfo } from './runFolder';

/** A live run as the launcher has told it so far (`live.json`: start, events) with the processes recorded so far. */
export function liveRun(dir: string, li: Partial<LiveInfo>, mode: RunInfo['mode']): OpenedRun {
  const info: Partial<RunInfo> = {
    version: 1,
    mode,
    ...(li.startedAt ? { startedAt: li.startedAt } : {}),
    ...(li.events?.length ? { events: li.events as RunEvent[] } : {}),
    processes: runProcesses(readProcessRecords(dir), []),
  };
  return { dir, info };
}
