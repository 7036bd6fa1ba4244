// `npm run bench requests`: what request tracking (#35) costs. The guide's Express app under `node-flame profile
// --mode cpu-prof`, with tracking and with `--no-requests`, under autocannon (keep-alive, 10 connections) for
// DURATION s: on /newUser of a user that exists (refused before any hashing, ~0.2 ms: the per-request cost shows) and
// on /auth (pbkdf2Sync, ~50 ms: what the guide measures). The two take turns round by round so a neighbour's load
// falls on both alike; the median of the rounds is kept. Requests/s moves with whatever else runs on the machine (2
// shared cores here), so the app's own CPU time per request (process.cpuUsage, from a second preload) is
// printed beside it as the steadier figure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
// NF_BENCH_CLI: the build measured (default this tree's dist/cli.js), e.g. a copy, so that building meanwhile changes nothing.
const cli = process.env.NF_BENCH_CLI ?? join(root, 'dist', 'cli.js');
// NF_BENCH_BASELINE=<another build's dist/cli.js>: a third arm, tracking on in that build, in the same rounds.
const baseline = process.env.NF_BENCH_BASELINE;
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const DURATION = Number(process.env.NF_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.NF_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const USER = '?username=matt&password=password';
const work = mkdtempSync(join(tmpdir(), 'nf-requests-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const cpuPreload = join(work, 'cpu.cjs');
writeFileSync(
  cpuPreload,
  // NODE_OPTIONS reaches the CLI and the load's autocannon too: only the app writes. Every 100 ms, not at exit: a
  // stop signal ends the app without 'exit' listeners.
  `if (/app\\.js$/.test(process.argv[1] || '')) setInterval(() => { const u = process.cpuUsage(); require('fs').writeFileSync(process.env.NF_BENCH_CPU, String(u.user + u.system)); }, 100).unref();`,
);

/** A child's exit: its status and stderr. */
function exited(cmd, args, options) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/** One profiled run under `path`'s load: autocannon's mean requests/s, and the app's CPU µs per request. */
async function run(path, tracking, out, cliPath = cli) {
  // A port of its own: 8080 may be a neighbour's.
  const port = await new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = srv.address().port;
      srv.close(() => resolve(p));
    });
  });
  const base = 'http://127.0.0.1:$NODE_FLAME_PORT';
  const load = `curl -s "${base}/newUser${USER}" >/dev/null && "${process.execPath}" "${autocannon}" -j -c ${CONNECTIONS} -d ${DURATION} "${base}${path}" > "${out}"`;
  const r = await exited(
    process.execPath,
    [
      cliPath,
      'profile',
      '-m',
      'cpu-prof',
      '--no-report',
      ...(tracking ? [] : ['--no-requests']),
      '--out',
      join(work, `runs-${out.split('/').pop()}`),
      '-l',
      load,
      '--',
      'node',
      'app.js',
    ],
    {
      cwd: join(root, 'examples', 'express-auth'),
      env: {
        ...process.env,
        PORT: String(port),
        NODE_PATH: join(root, 'node_modules'),
        NODE_OPTIONS: `--require ${cpuPreload}`,
        NF_BENCH_CPU: `${out}.cpu`,
      },
    },
  );
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  const r2 = JSON.parse(readFileSync(out, 'utf8'));
  return { rps: r2.requests.average, cpu: Number(readFileSync(`${out}.cpu`, 'utf8')) / (r2.requests.total + 1) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// NF_BENCH_ONLY=newUser (or auth): one of the two loads.
const only = process.env.NF_BENCH_ONLY;
for (const [name, path] of [
  ['/newUser (refused, ~0.2 ms)', `/newUser${USER}`],
  ['/auth (pbkdf2Sync)', `/auth${USER}`],
].filter(([, p]) => !only || p.startsWith(`/${only}?`))) {
  const on = [];
  const off = [];
  const base = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const arms = [
      () => run(path, false, join(work, `off-${round}.json`)),
      () => run(path, true, join(work, `on-${round}.json`)),
      ...(baseline ? [() => run(path, true, join(work, `base-${round}.json`), baseline)] : []),
    ];
    // NF_BENCH_PARALLEL=1: the arms run at the same time, so a neighbour's load falls on each alike (each is slower
    // than alone: compare the arms, not the figures with another machine's).
    const got = process.env.NF_BENCH_PARALLEL === '1' ? await Promise.all(arms.map((f) => f())) : [];
    if (!got.length) for (const f of arms) got.push(await f());
    off.push(got[0]);
    on.push(got[1]);
    if (baseline) base.push(got[2]);
    const say = (x) => `${Math.round(x.rps)} req/s ${x.cpu.toFixed(0)} µs CPU/request`;
    console.log(
      `${name} round ${round}: tracking off ${say(off.at(-1))}, on ${say(on.at(-1))}` +
        `${baseline ? `, on (baseline build) ${say(base.at(-1))}` : ''} (load average ${loadavg()[0].toFixed(1)})`,
    );
  }
  // Each round's ratio to its own 'off' run, a minute apart at most: steadier than the ratio of two medians.
  const ratio = (xs, f) => median(xs.map((x, i) => f(x) / f(off[i])));
  const extra = (xs) =>
    `${(100 * (1 - ratio(xs, (x) => x.rps))).toFixed(1)} % fewer req/s, ${(100 * (ratio(xs, (x) => x.cpu) - 1)).toFixed(1)} % more CPU/request`;
  console.log(`${name}: median of the rounds' ratios to 'off': on ${extra(on)}${baseline ? `; baseline build ${extra(base)}` : ''}`);
  const [a, b] = [median(off.map((x) => x.rps)), median(on.map((x) => x.rps))];
  const [ca, cb] = [median(off.map((x) => x.cpu)), median(on.map((x) => x.cpu))];
  console.log(
    `${name}: median of ${ROUNDS} × ${DURATION} s: off ${a.toFixed(1)} req/s ${ca.toFixed(1)} µs, on ${b.toFixed(1)} req/s ${cb.toFixed(1)} µs; ` +
      `req/s ${(100 * (1 - b / a)).toFixed(1)} % fewer, CPU/request ${(100 * (cb / ca - 1)).toFixed(1)} % more (load average ${loadavg()[0].toFixed(1)})`,
  );
}
