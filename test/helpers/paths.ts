import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root, found from wherever the bundled test runs (out/test/...). */
export const repoRoot: string = (() => {
  let d = __dirname;
  while (!existsSync(join(d, 'package.json')) || existsSync(join(d, 'test', 'helpers')) === false) {
    const up = dirname(d);
    if (up === d) throw new Error('repo root not found');
    d = up;
  }
  return d;
})();

export const fixtures = join(repoRoot, 'test', 'fixtures');
export const cli = join(repoRoot, 'dist', 'cli.js');
