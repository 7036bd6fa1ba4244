import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The first executable `name` on PATH, as a shell would find it. */
export async function findOnPath(name: string, path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (await isExecutable(p)) return p;
  }
  return undefined;
}

export async function isExecutable(p: string): Promise<boolean> {
  return access(p, constants.X_OK).then(
    () => true,
    () => false,
  );
}
