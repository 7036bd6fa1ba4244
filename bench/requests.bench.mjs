// `npm run bench requests`: what request tracking (#35) costs. The guide's Express app under `node-flame profile
// --mode cpu-prof`, with tracking and with `--no-requests`, under autocannon (keep-alive, 10 connections) for
// DURATION s: on /newUser of a user that exists (refused before any hashing, ~0.2 ms: the per-request cost shows) and
// on /auth (pbkdf2Sync, ~50 ms: what the guide measures). The two take turns round by round so a neighbour's load
// falls on both alike; the median of the rounds is kept.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const cli = join(root, 'dist', 'cli.js');
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const DURATION = Number(process.env.NF_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.NF_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const USER = '?username=matt&password=password';
const work = mkdtempSync(join(tmpdir(), 'nf-requests-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

/** One profiled run under `path`'s load; autocannon's mean requests/s. */
function run(path, tracking, out) {
  const base = 'http://127.0.0.1:$NODE_FLAME_PORT';
  const load = `curl -s "${base}/newUser${USER}" >/dev/null && "${process.execPath}" "${autocannon}" -j -c ${CONNECTIONS} -d ${DURATION} "${base}${path}" > "${out}"`;
  const r = spawnSync(
    process.execPath,
    [
      cli,
      'profile',
      '-m',
      'cpu-prof',
      '--no-report',
      ...(tracking ? [] : ['--no-requests']),
      '--out',
      join(work, 'runs'),
      '-l',
      load,
      '--',
      'node',
      'app.js',
    ],
    { cwd: join(root, 'examples', 'express-auth'), encoding: 'utf8', env: { ...process.env, NODE_PATH: join(root, 'node_modules') } },
  );
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return JSON.parse(readFileSync(out, 'utf8')).requests.average;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, path] of [
  ['/newUser (refused, ~0.2 ms)', `/newUser${USER}`],
  ['/auth (pbkdf2Sync)', `/auth${USER}`],
]) {
  const on = [];
  const off = [];
  for (let round = 1; round <= ROUNDS; round++) {
    off.push(run(path, false, join(work, `off-${round}.json`)));
    on.push(run(path, true, join(work, `on-${round}.json`)));
    console.log(`${name} round ${round}: tracking off ${Math.round(off.at(-1))} req/s, on ${Math.round(on.at(-1))} req/s`);
  }
  const [a, b] = [median(off), median(on)];
  console.log(
    `${name}: median of ${ROUNDS} × ${DURATION} s: off ${a.toFixed(1)} req/s, on ${b.toFixed(1)} req/s, cost ${(100 * (1 - b / a)).toFixed(1)} % (load average ${loadavg()[0].toFixed(1)})`,
  );
}
