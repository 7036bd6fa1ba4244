import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's Node Flame cache folder for `kind` (C++ symbols, the CLI's code cache): `NODE_FLAME_CACHE=off` keeps
 * nothing (null), another value is the folder to use; else `node-flame` in XDG_CACHE_HOME or ~/.cache.
 */
export function cacheFolder(kind: string): string | null {
  const env = process.env.NODE_FLAME_CACHE;
  if (env === 'off') return null;
  if (env) return join(env, kind);
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir());
  return join(base, 'node-flame', kind);
}
