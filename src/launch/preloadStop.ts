// Preloaded with `-r` into the profiled app: turns SIGINT/SIGTERM into a normal exit so profilers
// that write on exit (--cpu-prof, --prof) flush their output.
import { saveInMemorySourceMapsOnExit } from './preloadSourceMaps';
import { recordThisProcess } from './processRecords';
import { cpuProfileWithoutFlag } from './preloadCpuProfile';
import { recordLoopDelay } from './preloadLoopDelay';
import { heapProfileInProcess } from './preloadHeapProfile';
import { markLogClock } from './preloadLogClock';

markLogClock();
recordThisProcess();
cpuProfileWithoutFlag();
heapProfileInProcess();
recordLoopDelay();

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => process.exit(0));
}
saveInMemorySourceMapsOnExit();
