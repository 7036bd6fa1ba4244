import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Niceness of a live run's reader: the lowest share of a busy CPU Linux gives (weight 15 against the app's 1024). */
const LIVE_READER_NICE = 19;

/**
 * Lowers the priority of the calling thread only (Linux keeps a niceness per thread; `/proc/thread-self` names it):
 * a live run's reader re-reads what the run wrote so far (a prof run's logs, a perf run's slice scripts, whole), which
 * on a busy machine came out of the app's CPU. Measured: a 14 s live perf run's CLI took 1.52 s of CPU, 0.23 s without
 * live, and the guide's app served 8.4 req/s against 17.3. The live view waits instead of the app.
 */
export function yieldToTheApp(): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, LIVE_READER_NICE);
  } catch {
    // not allowed here, or no /proc: the reader runs at the app's priority
  }
}
