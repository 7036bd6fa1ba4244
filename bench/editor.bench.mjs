// The editor's figures for big profiles (#33): a real VS Code (code-server, set up as the e2e tests set it up) opens a
// ~240 MB .cpuprofile; the test prints command → painted, zoom, Timeline and range figures. NF_BENCH_MB sets the size.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const step = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
step('npm', ['run', 'package', '--silent']);
step('bash', ['test/e2e/setup.sh']);
step('npm', ['run', 'build', '--silent']);
step(process.execPath, ['--test', '--test-reporter=spec', join(root, 'out/test/bench/editor-big.test.js')]);
