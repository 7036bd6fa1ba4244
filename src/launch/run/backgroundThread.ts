import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Niceness of a live run's reader: the lowest share of a busy CPU Linux gives (weight 15 against the app's 1024). */
const LIVE_READER_NICE = 19;

/** A worker thread's niceness stays once set: one call does. */
let yielded = false;

/**
 * Lowers the priority of the calling thread only (Linux keeps a niceness per thread; `/proc/thread-self` names it):
 * a live run's reader re-reads what the run wrote so far (a prof run's logs, a perf run's script text), which
 * on a busy machine comes out of the app's CPU (a 14 s live perf run's CLI took 1.5-4.4 s of CPU, 0.23 s without
 * live). Niced, the live view waits instead of the app; at load 2.5-3 the app's req/s did not measurably change either way.
 */
export function yieldToTheApp(): void {
  if (yielded || process.platform !== 'linux') return;
  yielded = true;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, LIVE_READER_NICE);
  } catch {
    // not allowed here, or no /proc: the reader runs at the app's priority
  }
}
