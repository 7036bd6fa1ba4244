// Preloaded with `-r` into the profiled app: records the process, starts the in-process profilers,
// and makes a stop signal write what would be written at exit (preloadSignals.ts).
import { unlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { saveInMemorySourceMapsOnExit } from './sourceMaps';
import { captureInlineMaps } from './inlineMaps';
import { recordThisProcess, recordThisThread, RUN_DIR_ENV } from '../run/processRecords';
import { cpuProfileInProcess, CPU_PROF_ENV } from './cpuProfile';
import { handleStopSignals } from './signals';
import { recordLoopDelay } from './loopDelay';
import { recordRequests } from './requests';
import { heapProfileInProcess, HEAP_PROF_ENV } from './heapProfile';
import { markLogClock } from './logClock';
import { keepFlagsInForks, NODE_FLAGS_ENV } from './forkFlags';
import { keepWorkerLogs } from './workerLogs';
import { runIsLive, watchLauncher } from '../run/runLiveness';

const runDir = process.env[RUN_DIR_ENV];
if (runDir && !runIsLive(runDir)) {
  // Started after its run ended (by a process that outlived it): this process and its children write nothing there.
  for (const k of [RUN_DIR_ENV, CPU_PROF_ENV, HEAP_PROF_ENV, NODE_FLAGS_ENV]) delete process.env[k];
}

markLogClock();
recordThisProcess();
recordThisThread();
keepFlagsInForks();
keepWorkerLogs();
const profiling = [cpuProfileInProcess(), heapProfileInProcess()].some(Boolean);
recordLoopDelay();
recordRequests();
captureInlineMaps();

// Signals reach the main thread only.
if (isMainThread) handleStopSignals(profiling);
saveInMemorySourceMapsOnExit();

if (process.env[RUN_DIR_ENV] && isMainThread)
  watchLauncher(() => {
    // Nobody is left to stop the app or to read what it writes (the CLI was SIGKILLed): it is stopped as
    // Stop would, and the JIT map perf mode leaves in /tmp goes with it.
    if (process.execArgv.includes('--perf-basic-prof'))
      process.on('exit', () => {
        try {
          unlinkSync(`/tmp/perf-${process.pid}.map`);
        } catch {
          // not written
        }
      });
    process.kill(process.pid, 'SIGTERM');
  });
