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
  writeOnceAtEnd(() => {
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
