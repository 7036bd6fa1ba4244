// `npm run bench`: each bench/*.bench.mjs times Node Flame against its anchor in the same run and prints ratios.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
for (const f of readdirSync(here)
  .filter((n) => n.endsWith('.bench.mjs'))
  .sort()) {
  if (only && !f.includes(only)) continue;
  console.log(`\n=== ${f} ===`);
  // Words after the name go to the benchmark (`npm run bench corpus small`).
  const r = spawnSync(process.execPath, [join(here, f), ...process.argv.slice(3)], { stdio: 'inherit' });
  if (r.status !== 0) console.log(`${f} exited with ${r.status}`);
}
