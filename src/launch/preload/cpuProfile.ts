import { join } from 'node:path';
import type * as Inspector from 'node:inspector';
import type * as WorkerThreads from 'node:worker_threads';
import { isMainThread, threadId } from 'node:worker_threads';
import { NOT_PROFILED_NO_INSPECTOR, recordNotProfiled, RUN_DIR_ENV } from '../run/processRecords';
import { writeOnceAtEnd } from './signals';
import { createNewFileSync } from '../../core/safeWrite';
import { runIsLive } from '../run/runLiveness';
import { cpuProfileName, LIVE_ENV } from '../run/cpuChunks';
import { profileInChunks } from './liveChunks';

/** Set by the launcher for a run in cpu-prof mode. */
export const CPU_PROF_ENV = 'NODE_FLAME_CPU_PROF';

/**
 * cpu-prof mode profiles each process's main thread in-process, not with `--cpu-prof`: Node writes a
 * `--cpu-prof` file only on a normal exit, so a process killed by a signal (nodemon restarts its app
 * with SIGUSR2) lost its whole profile. In-process, the preload writes it before the signal's death
 * (preloadSignals.ts), and a process started by a tool without our flags is profiled all the same.
 * The file is named as `--cpu-prof` would name it. Worker threads keep `--cpu-prof` (see below), but in a live run,
 * where each thread profiles itself in chunks, so the live view shows them as they run too.
 */
export function cpuProfileInProcess(): boolean {
  const dir = process.env[RUN_DIR_ENV];
  const live = !!process.env[LIVE_ENV];
  if (!dir || !process.env[CPU_PROF_ENV] || (!isMainThread && !live) || process.execArgv.some((a) => a.startsWith('--cpu-prof')))
    return false;
  if (isMainThread && !live) profileWorkersWithFlag(dir);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Session } = require('node:inspector') as typeof Inspector;
    const session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.start');
    const chunks = live ? profileInChunks(session, dir) : undefined;
    const name = cpuProfileName(process.pid, threadId);
    // A worker sees no signal, and no exit either when `worker.terminate()` ends it: then the run's collection
    // makes its profile from its chunks (cpuChunks.ts profilesFromChunks).
    writeOnceAtEnd(() => {
      // In-process inspector calls answer synchronously, as an exit handler or a dying signal needs.
      if (chunks) {
        const profile = chunks.take();
        try {
          if (profile && runIsLive(dir)) createNewFileSync(join(dir, name), JSON.stringify(profile));
        } catch {
          // as below
        }
        return;
      }
      session.post('Profiler.stop', (err, r) => {
        try {
          if (!err && runIsLive(dir)) createNewFileSync(join(dir, name), JSON.stringify(r.profile));
        } catch {
          // a full disk or a finished run's folder: the app's exit is not the place for a stack trace
        }
      });
    }, isMainThread);
    return true;
  } catch {
    // No inspector in this process (see NOT_PROFILED_NO_INSPECTOR): it goes unprofiled, the run goes on, and says why.
    if (isMainThread) recordNotProfiled(NOT_PROFILED_NO_INSPECTOR);
    return false;
  }
}

/**
 * A worker thread cannot be profiled from its own preload to the end: `worker.terminate()` ends it
 * with no 'exit' event. Node's `--cpu-prof` writes a worker's profile however it ends, and a Worker
 * accepts it in its own `execArgv`, so the Worker class gets the flags added to every new worker.
 */
function profileWorkersWithFlag(dir: string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wt = require('node:worker_threads') as typeof WorkerThreads;
  const Base = wt.Worker;
  const flags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  class ProfiledWorker extends Base {
    constructor(filename: string | URL, options: WorkerThreads.WorkerOptions = {}) {
      const own = options.execArgv ?? process.execArgv;
      super(filename, own.some((a) => a.startsWith('--cpu-prof')) ? options : { ...options, execArgv: [...own, ...flags] });
    }
  }
  try {
    Object.defineProperty(wt, 'Worker', { value: ProfiledWorker, writable: true, configurable: true, enumerable: true });
  } catch {
    // a frozen module object: workers go unprofiled
  }
}
