// Preloaded with `-r` into the profiled app: turns SIGINT/SIGTERM into a normal exit so profilers
// that write on exit (--cpu-prof, --prof) flush their output.
import { unlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { saveInMemorySourceMapsOnExit, SOURCE_MAPS_ENV } from './preloadSourceMaps';
import { recordThisProcess, RUN_DIR_ENV } from './processRecords';
import { cpuProfileWithoutFlag, CPU_PROF_ENV } from './preloadCpuProfile';
import { recordLoopDelay } from './preloadLoopDelay';
import { heapProfileInProcess, HEAP_PROF_ENV } from './preloadHeapProfile';
import { markLogClock } from './preloadLogClock';
import { runIsLive, watchLauncher } from './runLiveness';

const runDir = process.env[RUN_DIR_ENV];
if (runDir && !runIsLive(runDir)) {
  // Started after its run ended (by a process that outlived it): this process and its children write nothing there.
  for (const k of [RUN_DIR_ENV, SOURCE_MAPS_ENV, CPU_PROF_ENV, HEAP_PROF_ENV]) delete process.env[k];
}

markLogClock();
recordThisProcess();
cpuProfileWithoutFlag();
heapProfileInProcess();
recordLoopDelay();

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => process.exit(0));
}
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
