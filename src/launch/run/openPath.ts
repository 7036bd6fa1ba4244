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
  /** Told of the run folder `path` is, before its profiles are read (the CLI sizes its heap for tick logs). */
  beforeRunRead?: (run: OpenedRun) => void,
): Promise<{ profile: Profile; run?: OpenedRun }> {
  const dir = runFolderOf(path);
  const run = dir !== undefined ? openRun(dir) : undefined;
  if (dir !== undefined && dir === path) {
    const whole = run ?? { dir, info: {} };
    beforeRunRead?.(whole);
    return { profile: await loadRunProfile(whole, opts), run };
  }
  return { profile: await loadFile(path, opts), run };
}
