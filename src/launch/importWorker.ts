// Worker-thread entry (dist/worker.js): the import loop of src/core/worker.ts, which also reads a run folder
// (every process of a command, merged) there, so opening a run never parses on the extension host thread.
import { loadProfile } from '../core/importers';
import { serveImports } from '../core/worker';
import { isRunFolder, loadRunProfile } from './runProfile';

serveImports((path, opts) => (isRunFolder(path) ? loadRunProfile(path, opts) : loadProfile(path, opts)));
