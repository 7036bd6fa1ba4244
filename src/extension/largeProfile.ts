import { stat } from 'node:fs/promises';

/** Above this, an import runs in dist/worker.js with its own cancellable progress notification. */
export const WORKER_IMPORT_BYTES = 20 * 1024 * 1024;

export async function isLargeProfile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > WORKER_IMPORT_BYTES;
  } catch {
    return false; // the importer reports a missing file in its own words
  }
}
