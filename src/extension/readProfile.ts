// Loaded on the first profile opened (see ProfileStore.load): the importers stay out of activation.
import type { Profile } from '../core/model';
import { loadProfile } from '../core/importers';
import { mapProfilePaths } from '../core/pathMapping';
import { applySourceMaps } from '../core/sourcemaps';
import { loadInWorker } from './bigImport';
import { isLargeProfile } from './largeProfile';
import { workspacePathMapper } from './pathMapper';

/** Big files parse in a worker: the editor stays responsive and the user can cancel. `sampleType`: a pprof's, read in place. */
export async function readProfile(path: string, sampleType?: string): Promise<Profile> {
  const profile = sampleType !== undefined ? await loadProfile(path, { sampleType }) : (await isLargeProfile(path)) ? await loadInWorker(path) : await loadProfile(path);
  // A pprof comes from a server or a container (Pyroscope, Datadog): its paths are theirs, mapped like attach's.
  if (profile.format === 'pprof' && mapProfilePaths(profile, workspacePathMapper()).size > 0) await applySourceMaps(profile);
  return profile;
}
