import { dirname } from 'node:path';
import { replaceFileSync } from '../../core/safeWrite';
import { runIsLive } from '../run/runLiveness';
import type * as Inspector from 'node:inspector';
import { writeOnceAtEnd } from './signals';

/** Set by the launcher to the run folder's sourcemaps.json (core/announcedSourceMaps reads it back). */
export const SOURCE_MAPS_ENV = 'NODE_FLAME_SOURCE_MAPS';

/**
 * On exit, saves the inline source maps of scripts the app compiled from memory. A loader (tsx,
 * ts-node) transpiles `src/*.ts` without writing the JavaScript or its map anywhere, so the profile's
 * positions could not be mapped back once the process is gone. The in-process inspector lists every
 * script with the `sourceMappingURL` V8 saw, synchronously, which is what an exit handler needs.
 */
export function saveInMemorySourceMapsOnExit(): void {
  const out = process.env[SOURCE_MAPS_ENV];
  if (!out) return;
  // The app's child processes are not preloaded by us and must not overwrite the file.
  delete process.env[SOURCE_MAPS_ENV];
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
      session.on('Debugger.scriptParsed', (m) => {
        const { url, sourceMapURL } = m.params;
        if (url && sourceMapURL?.startsWith('data:') && !url.startsWith('node:')) maps[url] = sourceMapURL;
      });
      session.post('Debugger.enable');
      session.post('Debugger.disable');
      session.disconnect();
      if (Object.keys(maps).length > 0 && runIsLive(dirname(out))) replaceFileSync(out, JSON.stringify(maps));
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
