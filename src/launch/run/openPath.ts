// A path opened as the user meant it: a run folder (every process merged) or one profile file, with its run.
import { loadProfile } from '../../core/importers';
import type { Profile } from '../../core/model';
import { openRun, type OpenedRun } from './runFolder';
import { loadRunProfile, type RunLoadOptions } from './runProfile';
import { runFolderOf } from './runsDir';

export { isRunFolder, runFolderOf } from './runsDir';

/**
 * A path read as the user meant it: a run folder as one profile (every process merged), a file as itself; with
 * the run it belongs to, read once, so the Timeline's markers and the editor's hot spots need not read it again.
 */
export async function loadProfileOrRun<O extends RunLoadOptions>(
  path: string,
  opts: O,
  loadFile: (file: string, opts: O) => Promise<Profile> = loadProfile,
): Promise<{ profile: Profile; run?: OpenedRun }> {
  const dir = runFolderOf(path);
  const run = dir !== undefined ? openRun(dir) : undefined;
  if (dir !== undefined && dir === path) return { profile: await loadRunProfile(run ?? { dir, info: {} }, opts), run };
  return { profile: await loadFile(path, opts), run };
}
