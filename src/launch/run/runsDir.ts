// Apart from runFolder.ts (only node:fs, no importers): the extension's activation side watches run folders and
// tells which run a file is in with it, without loading the launcher or the importers.
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The run folders' parent inside a workspace folder (or the CLI's cwd). */
export const RUNS_DIR = '.nodeflame';

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The run folder a path is, or is in: the folder itself when it holds a run.json, else the folder of the file (or
 * its parent: a profile one level down) that does. The one answer to "is this a run, which run is it in".
 */
export function runFolderOf(path: string): string | undefined {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return undefined;
  }
  const candidates = isDir ? [path] : [dirname(path), dirname(dirname(path))];
  return candidates.find((d) => isFile(join(d, 'run.json')));
}

/** True when `path` is a folder with a run.json (a run folder rather than one profile file). */
export function isRunFolder(path: string): boolean {
  return runFolderOf(path) === path;
}
