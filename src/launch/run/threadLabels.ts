import type { ThreadLabel } from '../../core/importers/types';
import type { RunProcess } from './runFolder';

/**
 * One name for each thread of a run, whichever mode took it: `pid 4242 server.js` (the main thread), `pid 4242 thread 1
 * server.js` (Node's worker threadId 1, as cpu-prof's files number it) and, for perf's threads that run no JavaScript
 * (V8's compiler and GC helpers, libuv's pool), `pid 4242 tid 4250 server.js`. Undefined for a perf thread of a
 * process the run did not record (a shell, perf itself): perf's own name stays.
 */
export function threadLabels(processes: readonly RunProcess[], commandOf: (pid: number) => string): ThreadLabel {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  return ({ pid, tid, threadId }) => {
    const p = byPid.get(pid);
    if (!p && threadId === undefined) return undefined;
    const id = threadId ?? (tid === pid ? 0 : p?.threads?.find((t) => t.tid === tid)?.threadId);
    const which = id === 0 ? '' : id !== undefined ? ` thread ${id}` : tid !== undefined ? ` tid ${tid}` : '';
    return `pid ${pid}${which} ${commandOf(pid)}`.trim();
  };
}

/** Whether `name` is one threadLabels gives a thread of `pid` (`pid 4242`, `pid 4242 thread 1 server.js`). */
export function labelsThreadOf(name: string, pid: number): boolean {
  return name === `pid ${pid}` || name.startsWith(`pid ${pid} `);
}
