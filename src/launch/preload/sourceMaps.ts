import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { createNewFileSync } from '../../core/safeWrite';
import { exitMapFileName, TRANSFORMED_NO_MAP } from '../../core/announcedSourceMaps';
import { runIsLive } from '../run/runLiveness';
import { RUN_DIR_ENV } from '../run/processRecords';
import type * as Inspector from 'node:inspector';
import { writeOnceAtEnd } from './signals';

/** A script V8 cannot have run as written: a loader turned it into JavaScript. */
const TRANSFORMED_SOURCE = /^file:.*\.(?:[cm]?tsx?|jsx)$/i;

/**
 * On exit, saves the inline source maps of scripts the app compiled from memory. A loader (tsx,
 * ts-node) transpiles `src/*.ts` without writing the JavaScript or its map anywhere, so the profile's
 * positions could not be mapped back once the process is gone. The in-process inspector lists every
 * script with the `sourceMappingURL` V8 saw, synchronously, which is what an exit handler needs.
 * Each process (and thread) writes its own file in the run folder: `npm start` runs `tsx src/main.ts`,
 * whose CLI starts the node process that loads the code, two processes below the one the launcher started.
 */
export function saveInMemorySourceMapsOnExit(): void {
  const dir = process.env[RUN_DIR_ENV];
  if (!dir) return;
  const registered = noteLoaderRegistration();
  writeOnceAtEnd(() => {
    // Enabling the debugger makes V8 hash every script's source (5 MB of sass: ~50 ms of SHA-256 at exit, 3 % of a
    // short --prof run's ticks, shown as the app's own under node::inspector). Only an ES module loader compiles from
    // memory without passing through the hooks of inlineMaps.ts: without one there is nothing to find.
    if (!esmLoaderFlag(process.execArgv, process.env.NODE_OPTIONS) && !registered()) return;
    try {
      // Loaded only now: a node built without the inspector throws here, not at the app's start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Session } = require('node:inspector') as typeof Inspector;
      const session = new Session();
      session.connect();
      const maps: Record<string, string> = {};
      // A node that strips types itself keeps every position (spaces where the types were).
      const stripsTypes = (process.features as { typescript?: string }).typescript === 'strip';
      session.on('Debugger.scriptParsed', (m) => {
        const { url, sourceMapURL } = m.params;
        if (url && sourceMapURL?.startsWith('data:') && !url.startsWith('node:')) maps[url] = sourceMapURL;
        // A TypeScript or JSX file V8 compiled with no map: its positions are the transformed code's (the report says so).
        else if (!sourceMapURL && !stripsTypes && TRANSFORMED_SOURCE.test(url) && !(url in maps)) maps[url] = TRANSFORMED_NO_MAP;
      });
      session.post('Debugger.enable');
      session.post('Debugger.disable');
      session.disconnect();
      if (Object.keys(maps).length === 0 || !runIsLive(dir)) return;
      // A new file only (no link followed, nothing of another process's overwritten).
      createNewFileSync(join(dir, exitMapFileName(process.pid, threadId)), JSON.stringify(maps));
    } catch {
      // No maps is a profile with generated positions, never a failed exit.
    }
  });
}

/** Whether node's flags (its command line's, then NODE_OPTIONS) load an ES module loader or a module that may register one. */
export function esmLoaderFlag(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((a) => /^--(import|loader|experimental-loader)(=|$)/.test(a));
}

/** Notes a call of `module.register` (an app registering its loader hooks itself); reads whether one was made. */
function noteLoaderRegistration(): () => boolean {
  let called = false;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('node:module') as { register?: (...a: unknown[]) => unknown; syncBuiltinESMExports(): void };
    const register = mod.register;
    if (typeof register === 'function') {
      mod.register = function (this: unknown, ...args: unknown[]) {
        called = true;
        return register.apply(this, args);
      };
      // `import { register } from 'node:module'` sees the new export only after this.
      mod.syncBuiltinESMExports();
    }
  } catch {
    // No module.register on this node: no loader can be registered that way.
  }
  return () => called;
}
