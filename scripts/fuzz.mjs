// `npm run fuzz`: bundles the fuzz driver (test/fuzz/main.ts) and runs it; arguments pass through.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'out', 'fuzz', 'main.js');
await esbuild.build({
  entryPoints: [join(root, 'test/fuzz/main.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
const r = spawnSync(process.execPath, ['--enable-source-maps', out, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
