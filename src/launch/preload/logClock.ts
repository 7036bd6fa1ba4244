import { wallClockEdge } from '../run/wallClock';
import { isMainThread, threadId } from 'node:worker_threads';
import { LOG_CLOCK_PREFIX, LOG_THREAD_PREFIX } from '../../core/importers/v8log/clock';

/**
 * Runs inside each profiled process (from the preload) in `--prof` mode. A V8 tick log counts microseconds
 * from its own logger's start and holds no wall-clock time, so the logs of a run's processes cannot be put on
 * one axis by themselves. A function named after this moment's wall-clock time (µs) is compiled here, and
 * V8 logs its code-creation with the log's timestamp: the pair ties the log's clock to the wall clock to
 * well under a millisecond (the process's start time is ~30–70 ms off: V8's logger starts after Node's
 * time origin, by a startup-dependent amount).
 */
export function markLogClock(): void {
  if (!process.execArgv.includes('--prof')) return;
  try {
    const us = wallClockEdge() * 1000;
    (new Function(`return function ${LOG_CLOCK_PREFIX}${us}() {}`) as () => () => void)()();
    // A worker's log says which thread it is: logs are named by isolate address, which a later worker may reuse.
    if (!isMainThread) (new Function(`return function ${LOG_THREAD_PREFIX}${threadId}() {}`) as () => () => void)()();
  } catch {
    // code from strings disallowed (--disallow-code-generation-from-strings): the run falls back to start times
  }
}
