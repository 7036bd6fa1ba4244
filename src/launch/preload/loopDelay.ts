import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { writeBeforeSignalDeath } from './signals';
import { RUN_DIR_ENV } from '../run/processRecords';
import { appendWhileLive } from '../run/runLiveness';

/** How often the event-loop delay and heap size are read (ms). */
export const LOOP_SAMPLE_MS = 100;

/** `loop-<pid>.jsonl`: a header line `{"timeOrigin": …}`, then `[epochMs, maxDelayMs, heapUsedBytes]` per reading. */
export function loopFileName(pid: number): string {
  return `loop-${pid}.jsonl`;
}

/**
 * Runs inside each profiled process (from the preload): every LOOP_SAMPLE_MS the longest event-loop delay
 * since the last reading and the heap in use, appended to the run folder about once a second and at exit.
 * The timer is unref'd, so it never keeps the app alive.
 */
export function recordLoopDelay(): void {
  const runDir = process.env[RUN_DIR_ENV];
  if (!runDir || !isMainThread) return;
  const file = join(runDir, loopFileName(process.pid));
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let lines = `${JSON.stringify({ timeOrigin: performance.timeOrigin })}\n`;
  const flush = () => {
    if (!lines) return;
    // The run ended (or its launcher died): this process outlived it.
    if (!appendWhileLive(runDir, file, lines)) clearInterval(timer);
    lines = '';
  };
  let n = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    // This timer's own lateness is a delay too: while the loop is blocked the histogram may take no reading at all.
    const now = performance.now();
    const late = Math.max(0, now - last - LOOP_SAMPLE_MS);
    last = now;
    const delay = Math.max(late, h.count ? h.max / 1e6 : 0);
    h.reset();
    lines += `[${Date.now()},${Math.round(delay * 10) / 10},${process.memoryUsage().heapUsed}]\n`;
    if (++n % 10 === 0) flush();
  }, LOOP_SAMPLE_MS);
  timer.unref();
  const end = () => {
    clearInterval(timer);
    flush();
  };
  process.on('exit', end);
  writeBeforeSignalDeath(end);
}
