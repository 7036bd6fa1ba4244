// `npm run bench overhead`: requests/s of a small HTTP app without profiling and under each mode
// (`node-flame profile --mode prof|perf|cpu-prof`), printed as ratios to the run without. The load is
// autocannon (keep-alive, 10 connections) for DURATION s; the modes take turns round by round so a
// neighbour's load on the machine falls on all of them alike, and the median of the rounds is kept.
// Requests/s moves with whatever else runs on the machine, so the app's own CPU time per request
// (process.cpuUsage at exit: the profiler's threads in the process included, perf's own process not) is
// printed beside it as the steadier figure.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { which } from './measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const cli = join(root, 'dist', 'cli.js');
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const DURATION = Number(process.env.NF_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.NF_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;

const work = mkdtempSync(join(tmpdir(), 'nf-overhead-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const app = join(work, 'app.js');
// About 0.1–0.2 ms of JavaScript per request (JSON, a hash, string work): the app, not the socket, is the cost.
writeFileSync(
  app,
  `const http = require('node:http');
const { createHash } = require('node:crypto');
const items = Array.from({ length: 200 }, (_, i) => ({ id: i, name: 'item ' + i, tags: ['a', 'b', String(i % 7)] }));
function render(q) {
  const picked = items.filter((x) => x.id % 3 === q % 3).map((x) => ({ ...x, label: x.name.toUpperCase() }));
  const body = JSON.stringify({ q, picked });
  return body + createHash('sha256').update(body).digest('hex');
}
let n = 0;
// CPU time of this process per request, written at exit for the benchmark.
process.on('SIGINT', () => process.exit(0));
process.on('exit', () => {
  const u = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.NF_OVERHEAD_CPU, JSON.stringify({ requests: n, cpuUs: u.user + u.system }));
});
http.createServer((req, res) => res.end(render(n++))).listen(Number(process.env.PORT) || 0, '127.0.0.1', function () {
  console.log('listening on http://localhost:' + this.address().port);
});
`,
);

/** The load command, with autocannon's JSON report written to `out`. */
const loadCommand = (out) =>
  `"${process.execPath}" "${autocannon}" -j -c ${CONNECTIONS} -d ${DURATION} http://127.0.0.1:$NODE_FLAME_PORT/ > "${out}"`;
/** Autocannon's mean requests/s, and the app's CPU µs per request it answered. */
const result = (out) => {
  const cpu = JSON.parse(readFileSync(`${out}.cpu`, 'utf8'));
  return { rps: JSON.parse(readFileSync(out, 'utf8')).requests.average, cpuPerRequest: cpu.cpuUs / Math.max(1, cpu.requests) };
};

/** No profiler: the app on its own, the same load once it listens. */
async function plain(out) {
  const child = spawn(process.execPath, [app], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NF_OVERHEAD_CPU: `${out}.cpu` },
  });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = /localhost:(\d+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`app exited: ${text}`)));
  });
  spawnSync('/bin/sh', ['-c', loadCommand(out)], { env: { ...process.env, NODE_FLAME_PORT: port }, stdio: 'inherit' });
  child.kill('SIGINT');
  await new Promise((r) => child.on('close', r));
  return result(out);
}

/** Under node-flame in one mode; the profile is written but not read (--no-report). */
function profiled(mode, out) {
  const r = spawnSync(
    process.execPath,
    [cli, 'profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--load', loadCommand(out), '--', process.execPath, app],
    { encoding: 'utf8', env: { ...process.env, NF_OVERHEAD_CPU: `${out}.cpu` } },
  );
  if (r.status !== 0) throw new Error(`${mode}: exit ${r.status}: ${r.stderr}`);
  return result(out);
}

const modes = ['none', 'prof', ...(which('perf') ? ['perf'] : []), 'cpu-prof'];
if (modes.length < 4) console.log('perf not on PATH: its row is left out');
const results = Object.fromEntries(modes.map((m) => [m, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const m of modes) {
    const out = join(work, `${m}-${round}.json`);
    results[m].push(m === 'none' ? await plain(out) : profiled(m, out));
  }
  console.log(
    `round ${round}: ${modes.map((m) => `${m} ${Math.round(results[m].at(-1).rps)} req/s ${results[m].at(-1).cpuPerRequest.toFixed(0)} µs`).join(' · ')}`,
  );
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const of = (m, k) => results[m].map((r) => r[k]);
const base = { rps: median(of('none', 'rps')), cpu: median(of('none', 'cpuPerRequest')) };
console.log(
  `\nmedian of ${ROUNDS} rounds of ${DURATION} s (autocannon -c ${CONNECTIONS}), Node ${process.version}, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}:`,
);
console.log(`  mode      req/s  (min–max)      vs none   app CPU µs/request  vs none`);
for (const m of modes) {
  const rps = median(of(m, 'rps'));
  const cpu = median(of(m, 'cpuPerRequest'));
  const range = `(${Math.round(Math.min(...of(m, 'rps')))}–${Math.round(Math.max(...of(m, 'rps')))})`.padEnd(14);
  const vs = (x) => (m === 'none' ? '       ' : x.toFixed(3).padStart(7));
  console.log(
    `  ${m.padEnd(9)}${String(Math.round(rps)).padStart(6)}  ${range} ${vs(rps / base.rps)}   ${cpu.toFixed(1).padStart(10)}          ${vs(cpu / base.cpu)}`,
  );
}
