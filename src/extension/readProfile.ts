// Loaded on the first profile opened (see ProfileStore.load): the importers stay out of activation.
import type { Profile } from '../core/model';
import { loadProfile } from '../core/importers';
import { loadInWorker } from './bigImport';
import { isLargeProfile } from './largeProfile';
import { isRunFolder, loadRunProfile } from '../launch/runProfile';

/** Big files parse in a worker: the editor stays responsive and the user can cancel. */
export async function readProfile(path: string): Promise<Profile> {
  // A run folder of a command: every process's profile, merged.
  if (isRunFolder(path)) return loadRunProfile(path);
  return (await isLargeProfile(path)) ? loadInWorker(path) : loadProfile(path);
}
