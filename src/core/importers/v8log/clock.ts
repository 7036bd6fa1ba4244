/** Name prefix of the function the preload compiles to tie a tick log's clock to the wall clock (see preloadLogClock.ts). */
export const LOG_CLOCK_PREFIX = 'nodeFlameClock_';

/** The wall-clock time (epoch ms) a code-creation record's name carries, if it is the preload's clock mark. */
export function logClockMark(name: string): number | undefined {
  if (!name.startsWith(LOG_CLOCK_PREFIX)) return undefined;
  const m = /^\w+?_(\d{10,17})(?:\s|$)/.exec(name);
  return m ? Number(m[1]) / 1000 : undefined;
}
