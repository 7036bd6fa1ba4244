// `npm run bench live`: what live updates cost. The guide's Express app (/auth hashes with pbkdf2Sync) under
// autocannon, requests/s with no profiler, and in cpu-prof, prof and perf modes each without and with `--live` (cpu-prof:
// the preload cuts its profile into a chunk a second; prof: nothing changes in the app, V8 writes its log as it goes;
// perf: perf record ends a slice a second and the launcher runs perf script on each, a process beside the app;
// either way the CLI reads what is there and redraws its table each second, as the editor's live view does). The
// modes take turns within each round (A B A B…); the median of the rounds and their spread (min–max) are kept.
// perf's own process and its perf script are not in the app's CPU time: for perf, requests/s is the figure.
// The app's own CPU time per request (process.cpuUsage at exit, the profiler's thread included) is the steadier
// figure on a shared machine. Goal: live costs at most 3 % more than cpu-prof's own overhead.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { which } from './measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
// NF_BENCH_CLI: the build measured (default this tree's dist/cli.js), e.g. a copy, so that building meanwhile changes nothing.
const cli = process.env.NF_BENCH_CLI ?? join(root, 'dist', 'cli.js');
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const DURATION = Number(process.env.NF_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.NF_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 4;

const work = mkdtempSync(join(tmpdir(), 'nf-live-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
copyFileSync(join(root, 'examples', 'express-auth', 'app.js'), join(work, 'app.js'));
// The app's CPU time from its first request to its exit (start-up left out), written at exit; the app as the guide has it.
writeFileSync(
  join(work, 'run.js'),
  `process.on('SIGINT', () => process.exit(0));
const http = require('node:http');
const emit = http.Server.prototype.emit;
let first;
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request' && !first) first = process.cpuUsage();
  return emit.call(this, event, ...args);
};
process.on('exit', () => {
  const u = process.cpuUsage(first);
  require('node:fs').writeFileSync(process.env.NF_LIVE_CPU, JSON.stringify({ cpuUs: u.user + u.system }));
});
require('./app.js');
`,
);
const env = (out, port) => ({ ...process.env, NODE_PATH: join(root, 'node_modules'), NF_LIVE_CPU: `${out}.cpu`, PORT: String(port) });
const base = (port) => `http://127.0.0.1:${port}`;
const loadCommand = (out, port) =>
  `curl -s "${base(port)}/newUser?username=matt&password=password" >/dev/null && ` +
  `"${process.execPath}" "${autocannon}" -j -c ${CONNECTIONS} -d ${DURATION} "${base(port)}/auth?username=matt&password=password" > "${out}"`;
const result = (out) => {
  const a = JSON.parse(readFileSync(out, 'utf8'));
  const cpu = JSON.parse(readFileSync(`${out}.cpu`, 'utf8'));
  return { rps: a.requests.average, cpuPerRequest: cpu.cpuUs / Math.max(1, a.requests.total) };
};
let nextPort = 20000 + (process.pid % 20000);

async function plain(out) {
  const port = nextPort++;
  const child = spawn(process.execPath, [join(work, 'run.js')], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'], env: env(out, port) });
  await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d) => (text += d) && /listening/.test(text) && resolve());
    child.on('exit', () => reject(new Error(`app exited: ${text}`)));
  });
  spawnSync('/bin/sh', ['-c', loadCommand(out, port)], { stdio: 'inherit' });
  child.kill('SIGINT');
  await new Promise((r) => child.on('close', r));
  return result(out);
}

// The CLI's own CPU (what reading and drawing live costs beside the app), from /proc/<pid>/stat while it runs:
// utime + stime of the process alone, its children (the app, perf) not included; read every 100 ms until it exits.
async function profiled(mode, live, out) {
  const port = nextPort++;
  const child = spawn(
    process.execPath,
    [
      cli,
      'profile',
      '--mode',
      mode,
      ...(live ? ['--live'] : []),
      '--no-report',
      '--out',
      join(work, 'runs'),
      '--port',
      String(port),
      '--load',
      loadCommand(out, port),
      '--',
      process.execPath,
      'run.js',
    ],
    { cwd: work, env: env(out, port), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let cliTicks = 0;
  const poll = setInterval(() => {
    try {
      const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      cliTicks = Number(f[11]) + Number(f[12]);
    } catch {
      // gone
    }
  }, 100);
  const code = await new Promise((r) => child.on('close', r));
  clearInterval(poll);
  if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
  return { ...result(out), cliCpu: cliTicks / 100, tables: live ? stdout.split('\n').filter((l) => l.startsWith('live · ')).length : 0 };
}

// NF_BENCH_MODES=perf,prof: only those modes (and none).
const profModes = ['cpu-prof', 'prof', ...(which('perf') ? ['perf'] : [])].filter(
  (m) => !process.env.NF_BENCH_MODES || process.env.NF_BENCH_MODES.split(',').includes(m),
);
const modes = ['none', ...profModes.flatMap((m) => [m, `${m} --live`])];
const results = Object.fromEntries(modes.map((m) => [m, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const m of modes) {
    const out = join(work, `${m.replace(/\W+/g, '-')}-${round}.json`);
    results[m].push(m === 'none' ? await plain(out) : await profiled(m.split(' ')[0], m.endsWith('--live'), out));
  }
  const tables = profModes.map((m) => `${m} ${results[`${m} --live`].at(-1).tables}`).join(', ');
  console.log(
    `round ${round}: ${modes.map((m) => `${m} ${Math.round(results[m].at(-1).rps)} req/s ${(results[m].at(-1).cpuPerRequest / 1000).toFixed(2)} ms`).join(' · ')} (live tables: ${tables}; load average ${loadavg()[0].toFixed(1)})`,
  );
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const of = (m, k) => results[m].map((r) => r[k]);
const none = { rps: median(of('none', 'rps')), cpu: median(of('none', 'cpuPerRequest')) };
console.log(
  `\nmedian of ${ROUNDS} rounds of ${DURATION} s (Express /auth, autocannon -c ${CONNECTIONS}), Node ${process.version}, load average ${loadavg()[0].toFixed(1)}:`,
);
console.log(`  mode              req/s  (min–max)      vs none   app CPU ms/request  vs none`);
for (const m of modes) {
  const rps = median(of(m, 'rps'));
  const cpu = median(of(m, 'cpuPerRequest'));
  const range = `(${Math.round(Math.min(...of(m, 'rps')))}–${Math.round(Math.max(...of(m, 'rps')))})`.padEnd(14);
  const vs = (x) => (m === 'none' ? '       ' : x.toFixed(3).padStart(7));
  console.log(
    `  ${m.padEnd(16)}${String(Math.round(rps)).padStart(6)}  ${range} ${vs(rps / none.rps)}   ${(cpu / 1000).toFixed(3).padStart(10)}          ${vs(cpu / none.cpu)}`,
  );
}
for (const mode of profModes) {
  const [cp, lv] = [mode, `${mode} --live`].map((m) => ({ rps: median(of(m, 'rps')), cpu: median(of(m, 'cpuPerRequest')) }));
  // Each round's live run against the same round's run without live (and each against that round's 'none'): the
  // pairs are a minute apart at most, steadier than two medians on a shared machine.
  const paired = of(`${mode} --live`, 'rps').map((x, i) => (100 * (x - of(mode, 'rps')[i])) / of(mode, 'rps')[i]);
  const overhead = (m) => of(m, 'rps').map((x, i) => 100 * (1 - x / of('none', 'rps')[i]));
  const points = overhead(`${mode} --live`).map((x, i) => x - overhead(mode)[i]);
  const pct = (xs) => `${median(xs).toFixed(1)} % (${Math.min(...xs).toFixed(1)} to ${Math.max(...xs).toFixed(1)})`;
  console.log(
    `${mode} --live vs ${mode}: req/s ${((100 * (lv.rps - cp.rps)) / cp.rps).toFixed(1)} % (medians), ${pct(paired)} (per round); ` +
      `overhead vs none ${median(overhead(mode)).toFixed(1)} % → ${median(overhead(`${mode} --live`)).toFixed(1)} %, live adds ${pct(points).replace(' %', ' points')}; ` +
      `app CPU per request ${((100 * (lv.cpu - cp.cpu)) / cp.cpu).toFixed(1)} % (goal: live adds no more than 3 %); ` +
      `the CLI's own CPU ${median(of(mode, 'cliCpu')).toFixed(2)} s → ${median(of(`${mode} --live`, 'cliCpu')).toFixed(2)} s (median per run)`,
  );
}
