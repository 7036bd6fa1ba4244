// Preloaded with `-r` into the profiled app: records the process, starts the in-process profilers,
// and makes a stop signal write what would be written at exit (preloadSignals.ts).
import { isMainThread } from 'node:worker_threads';
import { saveInMemorySourceMapsOnExit } from './preloadSourceMaps';
import { captureInlineMaps } from './preloadInlineMaps';
import { recordThisProcess } from './processRecords';
import { cpuProfileInProcess } from './preloadCpuProfile';
import { handleStopSignals } from './preloadSignals';
import { recordLoopDelay } from './preloadLoopDelay';
import { heapProfileInProcess } from './preloadHeapProfile';
import { markLogClock } from './preloadLogClock';

markLogClock();
recordThisProcess();
const profiling = [cpuProfileInProcess(), heapProfileInProcess()].some(Boolean);
recordLoopDelay();
captureInlineMaps();

// Signals reach the main thread only.
if (isMainThread) handleStopSignals(profiling);
saveInMemorySourceMapsOnExit();
