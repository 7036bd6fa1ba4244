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
