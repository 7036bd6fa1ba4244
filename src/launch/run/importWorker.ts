// Worker-thread entry (dist/worker.js): the import loop of src/core/worker.ts, which also reads a run folder
// (every process of a command, merged) there, so opening a run never parses on the extension host thread.
import { serveImports } from '../../core/worker';
import { loadProfileOrRun } from './openPath';
import { loadLiveRun } from './liveReader';
import { yieldToTheApp } from './backgroundThread';

// The viewer keeps the processes that only waited one click away: its picker starts without them (ViewerSession).
// The run, read here once, goes to the host with the profile (LoadedProfile.run).
serveImports(async (path, opts) => {
  // A live run's worker lives as long as the run: it keeps what it read and reads only the new chunks each time.
  if (opts.live) {
    yieldToTheApp();
    const { profile, run } = await loadLiveRun(path, { ...opts, allProcesses: true, onlyNew: true });
    return { profile, extra: run };
  }
  const { profile, run } = await loadProfileOrRun(path, { ...opts, allProcesses: true });
  return { profile, extra: run, handOver: true };
});
