/** Name prefix of the function the preload compiles to tie a tick log's clock to the wall clock (see preloadLogClock.ts). */
export const LOG_CLOCK_PREFIX = 'nodeFlameClock_';

/**
 * Name prefix of the function the preload compiles in each worker thread, followed by its `threadId`: the worker's log
 * says which thread it is, as cpu-prof's file names do (the logs' own names and order do not).
 */
export const LOG_THREAD_PREFIX = 'nodeFlameThread_';

/** The worker `threadId` a log's head names by the preload's mark, if it has one. */
export function logThreadMark(head: Buffer): number | undefined {
  // The preload's own source is in the log too (its script-source record): the mark is the prefix followed by digits.
  for (let at = head.indexOf(LOG_THREAD_PREFIX); at >= 0; at = head.indexOf(LOG_THREAD_PREFIX, at + 1)) {
    const from = at + LOG_THREAD_PREFIX.length;
    const m = /^\d{1,9}(?=\D)/.exec(head.toString('latin1', from, from + 11));
    if (m) return Number(m[0]);
  }
  return undefined;
}

/** The wall-clock time (epoch ms) a code-creation record's name carries, if it is the preload's clock mark. */
export function logClockMark(name: string): number | undefined {
  if (!name.startsWith(LOG_CLOCK_PREFIX)) return undefined;
  const m = /^\w+?_(\d{10,17})(?:\s|$)/.exec(name);
  return m ? Number(m[1]) / 1000 : undefined;
}
