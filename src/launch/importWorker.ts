// Worker-thread entry (dist/worker.js): the import loop of src/core/worker.ts, which also reads a run folder
// (every process of a command, merged) there, so opening a run never parses on the extension host thread.
import { loadProfile } from '../core/importers';
import { serveImports } from '../core/worker';
import { isRunFolder, loadRunProfile } from './runProfile';

// The viewer keeps the processes that only waited one click away: its picker starts without them (ViewerSession).
serveImports((path, opts) => (isRunFolder(path) ? loadRunProfile(path, { ...opts, allProcesses: true }) : loadProfile(path, opts)));
