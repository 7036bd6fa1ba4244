import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Above this, an import runs in dist/worker.js with its own cancellable progress notification. */
export const WORKER_IMPORT_BYTES = 20 * 1024 * 1024;

/** A file by its size; a run folder by the size of the files in it (every process's profile is read). */
export async function isLargeProfile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    if (!s.isDirectory()) return s.size > WORKER_IMPORT_BYTES;
    let total = 0;
    for (const name of await readdir(path))
      total += await stat(join(path, name)).then(
        (x) => (x.isFile() ? x.size : 0),
        () => 0,
      );
    return total > WORKER_IMPORT_BYTES;
  } catch {
    return false; // the importer reports a missing file in its own words
  }
}
