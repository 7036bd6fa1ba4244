// The name of a live heap file, apart from its reader (liveHeap.ts) so the preload that writes it stays small.

/** live.json's mode of a live heap attach (a launched heap run's is its mode, `heap`). */
export const ATTACH_HEAP_MODE = 'attach-heap';

export const LIVE_HEAP_NAME = /^live-heap-(\d+)(?:-(\d+))?\.heapprofile$/;

/**
 * A process's (a worker thread's: `-<threadId>`) live heap file: its sampling heap profile so far, replaced about once
 * a second by a live heap attach or a live heap run's preload.
 */
export function liveHeapFileName(pid: number, threadId = 0): string {
  return threadId ? `live-heap-${pid}-${threadId}.heapprofile` : `live-heap-${pid}.heapprofile`;
}

/**
 * When the next live heap copy may be taken, the last having started at `startedMs` and ended at `endedMs`
 * (performance.now()). A copy holds the app while V8 builds it (tens of ms for tens of MB of samples; 49–204 ms for a
 * 100 MB-sampled profile): spaced so that copies take at most a twentieth of the app's time.
 */
export function nextHeapCopyAt(startedMs: number, endedMs: number): number {
  return endedMs + 19 * (endedMs - startedMs);
}
