// A server profiled by `node-flame profile` under autocannon's load (or Node's http2 client's) (a mix of paths), for the Requests tests and bench.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli';
import { freePort } from './net';
import { repoRoot } from './paths';
import type { JsonReport } from '../../src/core/exporters/json';

/** autocannon's figures (ms) for the run's load. */
export interface LoadResult {
  requests: number;
  rps: number;
  latency: { p50: number; p90: number; p97_5: number; p99: number; mean: number };
}

/**
 * The load script: autocannon sends `amount` requests, `paths` in turn on each connection, its result as JSON into
 * `out`. A number of requests, not a duration: autocannon leaves out of its figures the requests still in flight at
 * its end, which the server did serve.
 */
const LOAD = `
const autocannon = require('autocannon');
const [port, paths, amount, connections, out] = [process.argv[2], JSON.parse(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), process.argv[6]];
autocannon({ url: 'http://127.0.0.1:' + port, connections, amount, requests: paths.map((path) => ({ path })) }, (err, r) => {
  if (err) throw err;
  require('fs').writeFileSync(out, JSON.stringify({ requests: r.requests.total, rps: r.requests.average, latency: r.latency }));
});
`;

/**
 * The same with Node's own http2 client (h2c, one session): `connections` streams in flight at once, the latency
 * percentiles as autocannon names them.
 */
const LOAD_HTTP2 = `
const http2 = require('http2');
const [port, paths, amount, connections, out] = [process.argv[2], JSON.parse(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), process.argv[6]];
const session = http2.connect('http://127.0.0.1:' + port);
const ms = [];
let sent = 0;
const t0 = performance.now();
const one = () => new Promise((resolve, reject) => {
  const start = performance.now();
  const r = session.request({ ':path': paths[sent++ % paths.length] });
  r.on('error', reject).resume().on('end', () => { ms.push(performance.now() - start); resolve(); });
});
const worker = async () => { while (sent < amount) await one(); };
Promise.all(Array.from({ length: connections }, worker)).then(() => {
  const secs = (performance.now() - t0) / 1000;
  ms.sort((a, b) => a - b);
  const p = (q) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)];
  const latency = { p50: p(0.5), p90: p(0.9), p97_5: p(0.975), p99: p(0.99), mean: ms.reduce((a, b) => a + b, 0) / ms.length };
  require('fs').writeFileSync(out, JSON.stringify({ requests: ms.length, rps: ms.length / secs, latency }));
  session.close();
});
`;

export interface ServerRun {
  runDir: string;
  load: LoadResult;
}

// Each server run's folder goes when the test process ends (its tests read the run folder until then): 514 of them
// were left in /tmp here after a day of test runs.
const madeDirs: string[] = [];
process.once('exit', () => madeDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A folder in the temp dir that goes when the test process ends. */
export function scratchDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(d);
  return d;
}

/**
 * `node-flame profile -m <mode>` of `app` (in `cwd`, listening on $PORT) while autocannon sends `amount` requests,
 * `paths` in turn, over `connections`; `setup` paths are fetched once first. `env` adds to the app's environment.
 */
export async function profileServer(o: {
  mode: 'cpu-prof' | 'prof' | 'perf';
  cwd: string;
  app: string;
  setup?: string[];
  paths: string[];
  amount: number;
  connections?: number;
  env?: NodeJS.ProcessEnv;
  nodePath?: string;
  /** The load's client: autocannon (HTTP/1.1, keep-alive), or Node's http2 client (h2c). */
  client?: 'autocannon' | 'http2';
}): Promise<ServerRun> {
  const work = scratchDir('nf-requests-');
  const script = join(work, 'load.cjs');
  writeFileSync(script, o.client === 'http2' ? LOAD_HTTP2 : LOAD);
  const port = await freePort();
  const out = join(work, 'load.json');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const setup = (o.setup ?? []).map((p) => `${q(process.execPath)} -e ${q(`fetch('http://127.0.0.1:${port}${p}').then(r=>r.text())`)}`);
  const load = [
    ...setup,
    [process.execPath, script, String(port), JSON.stringify(o.paths), String(o.amount), String(o.connections ?? 1), out].map(q).join(' '),
  ].join(' && ');
  const runs = join(work, 'runs');
  const nodePath = [o.nodePath, join(repoRoot, 'node_modules')].filter(Boolean).join(':');
  const r = await runCli(['profile', '-m', o.mode, '--no-report', '--out', runs, '-p', String(port), '-l', load, '--', 'node', o.app], {
    cwd: o.cwd,
    env: { PORT: String(port), NODE_PATH: nodePath, ...o.env },
    killAfterMs: 120000,
  });
  assert.equal(r.code, 0, r.stderr);
  const [run] = readdirSync(runs);
  return { runDir: join(runs, run), load: JSON.parse(readFileSync(out, 'utf8')) as LoadResult };
}

/** `node-flame report -f json` of a run (every function), with `--route` for each of `routes` and `more` flags. */
/** `--top` for a report that lists every function: the JSON keeps the top 50 by self time by default. */
export const ALL_FUNCTIONS = 100_000;

export async function jsonReport(runDir: string, routes: string[] = [], more: string[] = []): Promise<JsonReport> {
  const args = ['report', '-f', 'json', '-n', String(ALL_FUNCTIONS), ...routes.flatMap((x) => ['--route', x]), ...more, runDir];
  const r = await runCli(args, { cwd: repoRoot, killAfterMs: 60000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
}

/** A function's total share in a JSON report (0 when absent). */
export function totalOf(report: JsonReport, name: string): number {
  return Math.max(0, ...report.functions.filter((f) => f.name === name).map((f) => f.total));
}

type Route = NonNullable<JsonReport['requests']>['routes'][number];

/** A route's figures in a report (asserted present). */
export function route(report: JsonReport, key: string): Route {
  const r = report.requests?.routes.find((x) => x.key === key);
  assert.ok(r, `no route ${key} in ${JSON.stringify(report.requests?.routes.map((x) => x.key))}`);
  return r;
}

/** Where the setup request (the user created, with pbkdf2Sync) ended: the measured load starts after it. */
export async function afterSetup(run: ServerRun): Promise<number> {
  // The slowest /newUser by far: the others are refused before any hashing.
  const [setup] = (await jsonReport(run.runDir, ['GET /newUser'])).requests!.slowest;
  assert.ok(setup && setup.ms > 5, `the setup request: ${JSON.stringify(setup)}`);
  return Math.ceil(setup.end);
}

/** The route's figures over the load only (after the setup), with `--from`. */
export async function loadReport(run: ServerRun, from: number, routes: string[] = []): Promise<JsonReport> {
  return jsonReport(run.runDir, routes, ['--from', String(from)]);
}

/**
 * The guide's Express app (written into `dir`) with a middleware that reads the app's clock (`clockStart`) when each
 * request reaches Express and when its response finishes, saved per path at exit (`appClock`); the first request (the setup's,
 * which hashes) is not counted.
 */
export function clockedExpressApp(dir: string): void {
  const app = readFileSync(join(repoRoot, 'examples', 'express-auth', 'app.js'), 'utf8');
  const clock = `const app = express();
${appClockSource(dir)}
let seen = 0;
app.use((req, res, next) => {
  if (seen++ === 0) return next();
  const c0 = clockStart();
  res.on('finish', () => addCpu(req.path, c0));
  next();
});`;
  assert.ok(app.includes('const app = express();'));
  writeFileSync(join(dir, 'app.js'), app.replace('const app = express();', clock));
}

/**
 * App source for its own CPU clock: `addCpu(path, c0)` adds the main thread's CPU since `c0` (a `clockStart()`) to a
 * request of `path`; the sums are saved in `dir`/cpu.json at exit, SIGINT or SIGTERM (read by appClock).
 * The profilers sample the main thread; Node 20 has no clock of one thread's CPU, so a request's figure is the lesser
 * of the process's CPU (which also counts the GC's and compiler's threads: +10–16 % over the wall time on /newUser,
 * +5 % on /auth, session 24) and the wall time (which counts the waits of a descheduled thread). Either is at least the
 * main thread's CPU.
 */
export function appClockSource(dir: string): string {
  return `const cpu = {};
const clockStart = () => ({ cpu: process.cpuUsage(), wall: process.hrtime.bigint() });
const addCpu = (path, c0) => {
  const d = process.cpuUsage(c0.cpu);
  const wall = Number(process.hrtime.bigint() - c0.wall) / 1000;
  const a = (cpu[path] ??= { n: 0, us: 0 });
  a.n++;
  a.us += Math.min(d.user + d.system, wall);
};
const save = () => require('fs').writeFileSync(${JSON.stringify(join(dir, 'cpu.json'))}, JSON.stringify(cpu));
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { save(); process.exit(0); });
process.on('exit', save);`;
}

/** The clocked app's CPU per path: requests and µs. */
export function appClock(dir: string): Record<string, { n: number; us: number }> {
  return JSON.parse(readFileSync(join(dir, 'cpu.json'), 'utf8')) as Record<string, { n: number; us: number }>;
}

/** CPU ms per request of a path by the clocked app's own clock. */
export function clockMs(dir: string, path: string): number {
  const c = appClock(dir)[path];
  assert.ok(c?.n, `the app's clock saw ${path}`);
  return c.us / c.n / 1000;
}
