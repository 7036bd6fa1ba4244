import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCorpus } from '../helpers/corpusInstall';
import { cli, repoRoot } from '../helpers/paths';
import {
  afterSetup,
  ALL_FUNCTIONS,
  appClockSource,
  clockedExpressApp,
  clockMs,
  jsonReport,
  loadReport,
  profileServer,
  route,
  totalOf,
  type ServerRun,
  scratchDir,
} from '../helpers/requestsRun';
import type { JsonReport } from '../../src/core/exporters/json';
import { exportProfile } from '../../src/core/exporters';
import { answer } from '../../src/core/viewer/answer';
import type { EmbeddedProfile } from '../../src/core/viewer/embed';
import { offlineViewer } from '../../src/core/viewer/offlineHost';

/**
 * CPU ms per request compares two runs made apart, which a busy machine (2 cores shared here) slows unequally: its
 * samples are wall-clock ticks, and a descheduled thread's wait fell in them (/auth's pbkdf2Sync measured 52 ms per
 * request on a quiet machine and 62–100 ms a minute apart under load). Each stretch's CPU time (the preload's
 * schedstat readings) is now shared among its samples: /auth 53.2 vs 52.8 ms, fastify's /hash 52.9 vs 52.3 ms at load
 * average 10–14. So the 20 % holds.
 */
const CPU_TOLERANCE = 0.2;
/**
 * A request of a fraction of a millisecond is a fraction of one sampling interval: its CPU per request counts the few
 * samples that happen to fall in it. Measured mixed against alone: /newUser 0.43–0.85 vs 0.19–0.49 ms, fastify's
 * /user/:id 0.27–0.38 vs 0.08–0.17 ms. The extra is spread over every light request of the mix (0.22–0.37 samples
 * each at every position after a heavy one, only the first a little more), not the heavy one's samples leaking in:
 * a light request between 50 ms hashes meets colder caches and less optimized code than one of 3000 back to back,
 * so the two loads do not cost the same per request. What the test holds: no heavy sample leaks into a light route (its CPU stays far under a heavy
 * request's), and the alone run's figure is a fraction of a millisecond too.
 */
const LIGHT_MS = 2;
const near = (got: number, want: number, what: string) =>
  assert.ok(got < LIGHT_MS && want < LIGHT_MS && got > 0 && want > 0, `${what}: ${got} vs ${want} (a light route is under ${LIGHT_MS} ms)`);
const within = (got: number, want: number, tol: number, what: string) =>
  assert.ok(Math.abs(got - want) <= tol * want, `${what}: ${got} vs ${want} (more than ${tol * 100}% apart)`);

const USER = '?username=matt&password=password';
const expressDir = join(repoRoot, 'examples', 'express-auth');

for (const mode of ['cpu-prof', 'prof'] as const)
  test(
    `Express under a mixed load (${mode}): each route's own flame graph, CPU per request and latency`,
    { timeout: 240000 },
    async (t) => {
      // The guide's app with its own CPU clock per request (helpers/requestsRun.ts), one folder per run.
      const dirs = ['mixed', 'auth', 'newUser'].map((n) => mkdtempSync(join(tmpdir(), `nf-express-${n}-`)));
      t.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
      dirs.forEach(clockedExpressApp);
      const base = { mode, app: 'app.js', setup: [`/newUser${USER}`] };
      // One /auth (~50 ms of pbkdf2Sync) for five /newUser of a user that exists (refused before any hashing).
      const mixed = await profileServer({
        ...base,
        cwd: dirs[0],
        paths: [`/auth${USER}`, ...Array(5).fill(`/newUser${USER}`)],
        amount: 360,
      });
      const auth = await profileServer({ ...base, cwd: dirs[1], paths: [`/auth${USER}`], amount: 50 });
      const newUser = await profileServer({ ...base, cwd: dirs[2], paths: [`/newUser${USER}`], amount: 3000 });
      const from = await afterSetup(mixed);
      const m = await loadReport(mixed, from);
      const [a, n] = [route(m, 'GET /auth'), route(m, 'GET /newUser')];
      assert.ok(a.count >= 20 && n.count >= 5 * a.count - 5, `counts: /auth ${a.count}, /newUser ${n.count}`);
      assert.ok(
        Math.abs(a.count + n.count - mixed.load.requests) <= 2,
        `${a.count + n.count} requests recorded, autocannon sent ${mixed.load.requests}`,
      );
      // Each route's flame graph.
      const authOnly = await loadReport(mixed, from, ['GET /auth']);
      const newUserOnly = await loadReport(mixed, from, ['GET /newUser']);
      const share = totalOf(authOnly, 'pbkdf2Sync');
      assert.ok(share >= 0.9, `pbkdf2Sync holds ${share} of /auth's samples`);
      // cpu-prof's samples carry exact times: none of /newUser's hash. A --prof tick's time is when V8's profiler thread
      // wrote it (log.cc's TickEvent logs Time(), not the sample's), so with other work on the CPU some of /auth's last
      // ticks land in the 0.3 ms /newUser after it: 6 % once at load 6-11, 20 % at load 5 and 32.9 % in a CI run
      // (session 20) among the few samples /newUser has; the report says so (below). The bound is that /newUser's
      // samples are mostly its own; /auth's share above is what the route's graph shows.
      const leak = totalOf(newUserOnly, 'pbkdf2Sync');
      if (mode === 'cpu-prof') assert.equal(leak, 0, '/newUser never hashes here');
      else {
        assert.ok(leak < 0.5, `/newUser never hashes here: ${leak} of its samples are --prof ticks stamped late`);
        const text = spawnSync(process.execPath, [cli, 'report', mixed.runDir, '--top', '3'], { encoding: 'utf8' }).stdout;
        assert.match(text, /stamps each tick when V8's profiler thread writes it/, 'the text report says why');
      }
      assert.ok(newUserOnly.samples > 0 && authOnly.samples > 5 * newUserOnly.samples);
      // CPU per request against each route loaded alone.
      const alone = await Promise.all([auth, newUser].map(async (r) => loadReport(r, await afterSetup(r))));
      // Mixed against alone, as the app's own clock moved between the two runs: /auth took 54-58 ms a request on a quiet
      // machine and 69-73 ms beside benchmarks, and 72 vs 60 ms in two runs a minute apart once (CI-20), so the runs'
      // own figures are not held to each other but Node Flame's ratio to the clock's.
      const [clockMixed, clockAlone] = [clockMs(dirs[0], '/auth'), clockMs(dirs[1], '/auth')];
      const authAlone = route(alone[0], 'GET /auth').cpuMsPerRequest;
      within(
        a.cpuMsPerRequest / authAlone,
        clockMixed / clockAlone,
        CPU_TOLERANCE,
        `/auth CPU ms per request, mixed/alone (${a.cpuMsPerRequest} / ${authAlone} ms) against the app's clock (${clockMixed.toFixed(3)} / ${clockAlone.toFixed(3)} ms)`,
      );
      near(n.cpuMsPerRequest, route(alone[1], 'GET /newUser').cpuMsPerRequest, '/newUser CPU ms per request, mixed vs alone');
      // Latency as autocannon saw it: the mix's upper percentiles are /auth's; alone, every percentile is.
      within(m.requests!.all.p90, mixed.load.latency.p90, 0.1, 'mixed p90');
      within(m.requests!.all.p99, mixed.load.latency.p99, 0.1, 'mixed p99');
      const aa = route(alone[0], 'GET /auth');
      within(aa.p50, auth.load.latency.p50, 0.1, '/auth alone p50');
      // Of 50 requests p99 is the slowest one, which a busy machine makes the client wait for alone (autocannon is
      // descheduled too): p90 is the upper figure compared.
      within(alone[0].requests!.all.p90, auth.load.latency.p90, 0.1, '/auth alone p90');
      console.log(
        JSON.stringify({
          mode,
          pbkdf2SyncShareOfAuth: share,
          cpuMsPerRequest: {
            auth: [a.cpuMsPerRequest, aa.cpuMsPerRequest],
            authByTheAppsClock: [clockMixed, clockAlone],
            newUser: [n.cpuMsPerRequest, route(alone[1], 'GET /newUser').cpuMsPerRequest],
          },
          mixedLatency: { ours: m.requests!.all, autocannon: mixed.load.latency },
          authAloneLatency: { ours: [aa.p50, aa.p95, aa.p99], autocannon: auth.load.latency },
        }),
      );
    },
  );

/** Self share of SHA-512's block function (its name has the CPU's variant: `_avx2`, `_shaext`…). */
const sha512Of = (r: JsonReport) =>
  r.functions.filter((f) => f.name.startsWith('sha512_block_data_order')).reduce((sum, f) => sum + f.self, 0);

/**
 * perf unwinds by frame pointers, which OpenSSL's assembly does not keep: most of pbkdf2Sync's samples end in
 * `sha512_block_data_order_*` with no JavaScript frame above (pbkdf2Sync's total is ~33 % of /auth's samples, SHA-512's
 * self ~60 %). So the route's own flame graph is checked by its leaf: only /auth hashes.
 */
test("Express under a mixed load (perf): requests on perf's monotonic clock, SHA-512 only in /auth", { timeout: 240000 }, async () => {
  const mixed = await profileServer({
    mode: 'perf',
    cwd: expressDir,
    app: 'app.js',
    setup: [`/newUser${USER}`],
    paths: [`/auth${USER}`, ...Array(5).fill(`/newUser${USER}`)],
    amount: 180,
  });
  // After the first /newUser, which creates the user (hashing its password): later ones are refused before hashing.
  const from = await afterSetup(mixed);
  const m = await loadReport(mixed, from);
  const [a, n] = [route(m, 'GET /auth'), route(m, 'GET /newUser')];
  assert.ok(
    Math.abs(a.count + n.count - mixed.load.requests) <= 2,
    `${a.count + n.count} recorded, autocannon sent ${mixed.load.requests}`,
  );
  const whole = sha512Of(m);
  const auth = sha512Of(await loadReport(mixed, from, ['GET /auth']));
  const newUser = sha512Of(await loadReport(mixed, from, ['GET /newUser']));
  assert.ok(auth >= 0.4 && auth > whole, `SHA-512 is ${auth} of /auth's samples, ${whole} of the run's`);
  assert.equal(newUser, 0, '/newUser never hashes here');
  within(m.requests!.all.p90, mixed.load.latency.p90, 0.1, 'mixed p90');
  console.log(
    JSON.stringify({
      mode: 'perf',
      sha512: { whole, auth, newUser },
      counts: [a.count, n.count],
      latency: [m.requests!.all, mixed.load.latency],
    }),
  );
});

/** The fastify app, with its own CPU clock of /hash's work (appClockSource around it), saved at exit in `dir`/cpu.json. */
const fastifyApp = (dir: string) => `
const crypto = require('crypto');
const fastify = require('fastify')({ logger: false });
${appClockSource(dir)}
const clocked = (path, work) => {
  const c0 = clockStart();
  const r = work();
  addCpu(path, c0);
  return r;
};
fastify.get('/hash', async () => clocked('/hash', () => crypto.pbkdf2Sync('password', 'salt', 10000, 512, 'sha512').length));
fastify.get('/user/:id', async (req) => ({ id: req.params.id, name: 'user-' + req.params.id }));
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => console.log('listening'));
`;

test('fastify under a mixed load (cpu-prof): /user/:id is one route, /hash holds pbkdf2Sync', { timeout: 240000 }, async () => {
  const corpus = installCorpus(join(repoRoot, 'test', 'corpus'));
  const cwd = scratchDir('nf-fastify-');
  // One folder per run, each app with its own clock.
  const dirs = ['mixed', 'hash', 'user'].map((n) => join(cwd, n));
  for (const d of dirs) {
    mkdirSync(d);
    writeFileSync(join(d, 'server.js'), fastifyApp(d));
  }
  const base = { mode: 'cpu-prof' as const, app: 'server.js', nodePath: join(corpus.dir, 'node_modules') };
  const users = ['/user/1', '/user/42', '/user/7', '/user/1234', '/user/99'];
  const mixed = await profileServer({ ...base, cwd: dirs[0], paths: ['/hash', ...users], amount: 360 });
  const hash = await profileServer({ ...base, cwd: dirs[1], paths: ['/hash'], amount: 50 });
  const user = await profileServer({ ...base, cwd: dirs[2], paths: users, amount: 3000 });
  const m = await jsonReport(mixed.runDir);
  assert.deepEqual(m.requests!.routes.map((r) => r.key).sort(), ['(no request)', 'GET /hash', 'GET /user/:id']);
  const [h, u] = [route(m, 'GET /hash'), route(m, 'GET /user/:id')];
  assert.ok(
    Math.abs(h.count + u.count - mixed.load.requests) <= 2,
    `${h.count + u.count} recorded, autocannon sent ${mixed.load.requests}`,
  );
  assert.ok(u.count >= 5 * h.count - 5);
  const share = totalOf(await jsonReport(mixed.runDir, ['GET /hash']), 'pbkdf2Sync');
  assert.ok(share >= 0.9, `pbkdf2Sync holds ${share} of /hash's samples`);
  assert.equal(totalOf(await jsonReport(mixed.runDir, ['GET /user/:id']), 'pbkdf2Sync'), 0);
  const [ha, ua] = [route(await jsonReport(hash.runDir), 'GET /hash'), route(await jsonReport(user.runDir), 'GET /user/:id')];
  // Mixed against alone, as the app's own clock moved between the two runs (CI-2 of session 17: 53.4 vs 44.3 ms a
  // request by Node Flame under load), as in the Express case above.
  const [clockMixed, clockAlone] = [clockMs(dirs[0], '/hash'), clockMs(dirs[1], '/hash')];
  within(
    h.cpuMsPerRequest / ha.cpuMsPerRequest,
    clockMixed / clockAlone,
    CPU_TOLERANCE,
    `/hash CPU ms per request, mixed/alone (${h.cpuMsPerRequest} / ${ha.cpuMsPerRequest} ms) against the app's clock (${clockMixed.toFixed(3)} / ${clockAlone.toFixed(3)} ms)`,
  );
  console.log(
    JSON.stringify({
      fastifyHashCpuMs: { mixed: h.cpuMsPerRequest, alone: ha.cpuMsPerRequest },
      appsClock: { mixed: clockMixed, alone: clockAlone },
    }),
  );
  within(h.cpuMsPerRequest, clockMixed, CPU_TOLERANCE, "/hash CPU ms per request (mixed) vs the app's clock");
  near(u.cpuMsPerRequest, ua.cpuMsPerRequest, '/user/:id CPU ms per request, mixed vs alone');
  within(m.requests!.all.p90, mixed.load.latency.p90, 0.1, 'mixed p90');
  within(m.requests!.all.p99, mixed.load.latency.p99, 0.1, 'mixed p99');
  within(ha.p50, hash.load.latency.p50, 0.1, '/hash alone p50');
  // The HTML page of `report --route`: the whole run with its requests, opening on /hash's samples (a chip to undo).
  const htmlPath = join(cwd, 'hash.html');
  const r = spawnSync(process.execPath, [cli, 'report', mixed.runDir, '--format', 'html', '--route', 'GET /hash', '-o', htmlPath], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const json = /<script type="application\/json" id="node-flame-data">([\s\S]*?)<\/script>/.exec(readFileSync(htmlPath, 'utf8'))?.[1];
  const data = JSON.parse(json!) as EmbeddedProfile;
  assert.deepEqual(data.routes, ['GET /hash']);
  const page = offlineViewer(data);
  await page.inflate();
  // The page opens on the route, and says so over its views (the transforms bar's chip reads this).
  const opened = page.session.opening({}).find((m) => m.type === 'transforms');
  assert.ok(opened?.type === 'transforms');
  assert.deepEqual(opened.routes, ['GET /hash']);
  const [tab] = await answer(page.session, { type: 'requests' }, page.host);
  assert.ok(tab.type === 'requests' && tab.summary, JSON.stringify(tab).slice(0, 300));
  assert.deepEqual(tab.routes, ['GET /hash']);
  assert.deepEqual(tab.summary.routes.map((x) => x.key).sort(), ['(no request)', 'GET /hash', 'GET /user/:id']);
  // Every function, as jsonReport asks the CLI: pbkdf2Sync's self is 0 (its time is in the C++ under it), so past the
  // default top 50 by self time it read as 0 in some runs (CI-30a).
  const shownReport = () => JSON.parse(exportProfile(page.session.shownProfile(), 'json', { top: ALL_FUNCTIONS })) as JsonReport;
  const pageShare = totalOf(shownReport(), 'pbkdf2Sync');
  const routesText = (rs: { key: string; count: number; samples: number }[]) =>
    rs.map((x) => `${x.key} ${x.count} req ${x.samples} samples`).join(', ');
  assert.ok(
    Math.abs(pageShare - share) < 0.02,
    `the page's /hash holds pbkdf2Sync ${pageShare}, the CLI's ${share}; page: ${routesText(tab.summary.routes)}; CLI: ${routesText(m.requests!.routes)}`,
  );
  const [cleared] = await answer(page.session, { type: 'routes', routes: [] }, page.host);
  assert.ok(cleared.type === 'transforms' && cleared.routes === undefined, 'every sample again: no routes said');
  assert.ok(totalOf(shownReport(), 'pbkdf2Sync') < pageShare);
  console.log(
    JSON.stringify({
      fastify: {
        share,
        cpu: { hash: [h.cpuMsPerRequest, ha.cpuMsPerRequest], user: [u.cpuMsPerRequest, ua.cpuMsPerRequest] },
        latency: [m.requests!.all, mixed.load.latency],
      },
    }),
  );
});

test('NODE_FLAME_REQUESTS=0 turns request tracking off; a plain http server gets its ids collapsed', { timeout: 120000 }, async () => {
  const cwd = scratchDir('nf-plain-');
  const app = `require('http').createServer((q, s) => s.end(q.url)).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));`;
  writeFileSync(join(cwd, 'plain.js'), app);
  const paths = ['/item/3/part/17', '/item/5/part/2', '/item/0b2f6c1a-58c2-4f0e-9b7a-0d5c3e1f2a44/part/9'];
  const on = await profileServer({ mode: 'cpu-prof', cwd, app: 'plain.js', paths, amount: 300 });
  const keys = (await jsonReport(on.runDir)).requests!.routes.map((r) => r.key);
  assert.deepEqual(keys, ['GET /item/:id/part/:id', '(no request)']);
  // The text report's [Requests] table: the 300 requests on the one route.
  const text = (r: ServerRun) => spawnSync(process.execPath, [cli, 'report', r.runDir, '--top', '3'], { encoding: 'utf8' }).stdout;
  const table = text(on);
  assert.match(table, /^ \[Requests\]:$/m);
  assert.match(table, /^ +300 .* GET \/item\/:id\/part\/:id$/m, table.slice(table.indexOf('[Requests]')));
  const off = await profileServer({ mode: 'cpu-prof', cwd, app: 'plain.js', paths, amount: 300, env: { NODE_FLAME_REQUESTS: '0' } });
  assert.deepEqual(
    readdirSync(off.runDir).filter((f) => f.startsWith('requests-')),
    [],
  );
  assert.equal((await jsonReport(off.runDir)).requests, undefined);
  assert.doesNotMatch(text(off), /\[Requests\]/);
});

/** The same h2c server by each of http2's APIs: the stream API (an ES module's named import) and the compatibility API. */
const HTTP2_APPS = {
  'stream.mjs': `
import { createServer } from 'node:http2';
import { pbkdf2Sync } from 'node:crypto';
const server = createServer();
server.on('stream', (stream, headers) => {
  const path = headers[':path'];
  if (path === '/hash') {
    stream.respond({ ':status': 200 });
    stream.end(String(pbkdf2Sync('password', 'salt', 10000, 512, 'sha512').length));
  } else {
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(JSON.stringify({ id: path.split('/')[2] }));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
`,
  'compat.cjs': `
const crypto = require('crypto');
require('http2')
  .createServer((req, res) => {
    if (req.url === '/hash') return res.end(String(crypto.pbkdf2Sync('password', 'salt', 10000, 512, 'sha512').length));
    res.statusCode = 201;
    res.end(JSON.stringify({ id: req.url.split('/')[2] }));
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
`,
};

for (const [app, code] of Object.entries(HTTP2_APPS))
  test(`http2 (h2c, ${app}) under Node's http2 client: each route's count, status and flame graph`, { timeout: 120000 }, async () => {
    const cwd = scratchDir('nf-http2-');
    writeFileSync(join(cwd, app), code);
    const users = ['/user/1', '/user/42', '/user/7', '/user/1234', '/user/99'];
    const run = await profileServer({ mode: 'cpu-prof', cwd, app, client: 'http2', paths: ['/hash', ...users], amount: 180 });
    assert.equal(run.load.requests, 180);
    const m = await jsonReport(run.runDir);
    assert.deepEqual(m.requests!.routes.map((r) => r.key).sort(), ['(no request)', 'GET /hash', 'GET /user/:id']);
    const [h, u] = [route(m, 'GET /hash'), route(m, 'GET /user/:id')];
    assert.deepEqual([h.count, u.count], [30, 150]);
    // The light route's status as the app set it (the compatibility API's 201), read from the stream's sent headers.
    const lines = readdirSync(run.runDir)
      .filter((f) => f.startsWith('requests-'))
      .flatMap((f) => readFileSync(join(run.runDir, f), 'utf8').split('\n'))
      .filter((l) => l.startsWith('["q"'))
      .map((l) => JSON.parse(l) as [string, number, string, string, number, number, number]);
    const status = new Set(lines.filter((q) => q[3] === '/user/:id').map((q) => q[4]));
    assert.deepEqual([...status], [app === 'compat.cjs' ? 201 : 200]);
    assert.ok(lines.every((q) => q[6] >= q[5]));
    const hashOnly = await jsonReport(run.runDir, ['GET /hash']);
    const share = totalOf(hashOnly, 'pbkdf2Sync');
    assert.ok(share >= 0.9, `pbkdf2Sync holds ${share} of /hash's samples`);
    const userOnly = await jsonReport(run.runDir, ['GET /user/:id']);
    assert.equal(totalOf(userOnly, 'pbkdf2Sync'), 0, '/user/:id never hashes');
    assert.ok(h.cpuMsPerRequest > 10 * u.cpuMsPerRequest, `CPU per request: /hash ${h.cpuMsPerRequest}, /user/:id ${u.cpuMsPerRequest}`);
    within(m.requests!.all.p90, run.load.latency.p90, 0.1, 'p90');
    console.log(
      JSON.stringify({
        http2: app,
        share,
        counts: [h.count, u.count],
        cpu: [h.cpuMsPerRequest, u.cpuMsPerRequest],
        latency: [m.requests!.all, run.load.latency],
      }),
    );
  });

/**
 * Samples are wall-clock ticks: a thread that waits for a CPU (a busy machine) is still sampled in its request, so
 * samples × interval counted the wait as CPU. The preload reads the main thread's CPU time (Linux schedstat) and each
 * stretch's is shared among its samples. Here the app shares one CPU with a busy loop.
 */
test(
  'CPU ms per request counts CPU time, not the wait of a descheduled thread (cpu-prof, one CPU shared with a busy loop)',
  { timeout: 180000 },
  async () => {
    const cwd = scratchDir('nf-cpu-');
    // The app's own clock too: clockStart()/addCpu around each request, saved at exit (cpu.json, appClockSource).
    const app = `const { pbkdf2Sync } = require('crypto');
${appClockSource(cwd)}
require('http').createServer((q, s) => {
  const c0 = clockStart();
  const out = String(pbkdf2Sync('password', 'salt', 10000, 512, 'sha512').length);
  addCpu('/hash', c0);
  s.end(out);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));`;
    writeFileSync(join(cwd, 'hash.js'), app);
    const base = { mode: 'cpu-prof' as const, cwd, app: 'hash.js', paths: ['/hash'], amount: 30 };
    // This thread's CPU mask is what the CLI, the app and the load inherit; put back after.
    const mask = /:\s*([0-9a-f,]+)\s*$/i.exec(spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }).stdout)?.[1];
    assert.ok(mask, 'taskset reads this process mask');
    spawnSync('taskset', ['-p', '-c', '0', String(process.pid)]);
    let hog: ReturnType<typeof spawn> | undefined;
    try {
      const quiet = await profileServer(base);
      const quietClock = clockMs(cwd, '/hash');
      hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      const busy = await profileServer(base);
      const busyClock = clockMs(cwd, '/hash');
      const [q, b] = [route(await jsonReport(quiet.runDir), 'GET /hash'), route(await jsonReport(busy.runDir), 'GET /hash')];
      // The stretches' CPU readings left out: what samples × interval gives.
      const withoutCpu = async (run: ServerRun) => {
        const file = readdirSync(run.runDir).find((f) => f.startsWith('requests-'))!;
        const text = readFileSync(join(run.runDir, file), 'utf8');
        assert.match(text, /^\["c",/m);
        writeFileSync(join(run.runDir, file), text.replace(/^\["c",.*\n/gm, ''));
        return route(await jsonReport(run.runDir), 'GET /hash');
      };
      const [qWall, wall] = [await withoutCpu(quiet), await withoutCpu(busy)];
      console.log(
        JSON.stringify({
          cpuMsPerRequest: { quiet: q.cpuMsPerRequest, busy: b.cpuMsPerRequest },
          appsClock: { quiet: quietClock, busy: busyClock },
          samplesTimesInterval: { quiet: qWall.cpuMsPerRequest, busy: wall.cpuMsPerRequest },
          p50: [q.p50, b.p50],
        }),
      );
      assert.equal(b.count, 30);
      // What the busy loop does to the wall-clock figure: samples × interval is over the app's own CPU clock of the same
      // requests (session 16's CI-3: 92.8 vs 53.3 ms; 46.3 vs 38.1 on a quiet machine, where the woken server gets more
      // than half the CPU). Not held to the quiet run: that run shares CPU 0 with whatever else runs, and in session
      // 19's CI-3 its hash took 71.5 ms of CPU by the app's clock, against 47.0 ms in the busy run.
      assert.ok(
        wall.cpuMsPerRequest > 1.1 * busyClock,
        `samples × interval counts the wait: ${wall.cpuMsPerRequest} vs the app's clock ${busyClock} (quiet run ${q.cpuMsPerRequest})`,
      );
      // Held to the app's own CPU clock of the same requests, not to the quiet run: sharing one CPU with a busy loop can
      // itself cost the hash more CPU (CI-3, session 16: 53.3 vs 41.4 ms quiet, while samples × interval read 92.8).
      within(q.cpuMsPerRequest, quietClock, 0.2, "/hash CPU ms per request (quiet) vs the app's clock");
      within(b.cpuMsPerRequest, busyClock, 0.2, "/hash CPU ms per request (sharing a CPU) vs the app's clock");
    } finally {
      hog?.kill();
      spawnSync('taskset', ['-p', mask, String(process.pid)]);
    }
  },
);

test(
  'a request the client aborts is closed then: status 0, aborted, counted in its route (not left open)',
  { timeout: 120000 },
  async (t) => {
    const cwd = scratchDir('nf-abort-');
    // /slow answers after 400 ms, when its client (which gives up at 100 ms) is gone; its timer's code then is no request's.
    writeFileSync(
      join(cwd, 'server.js'),
      `const http = require('http');
const server = http.createServer((q, s) => {
  if (q.url === '/slow') return void setTimeout(() => s.end('late'), 400);
  s.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));`,
    );
    // A real client: two /slow requests destroyed mid-wait (the socket goes), /fast ones before and after.
    writeFileSync(
      join(cwd, 'client.js'),
      `const http = require('http');
const agent = new http.Agent({ keepAlive: true });
const get = (path, abortMs) => new Promise((resolve) => {
  const r = http.get({ host: '127.0.0.1', port: Number(process.env.NODE_FLAME_PORT), path, agent }, (res) => res.resume().on('end', resolve));
  r.on('error', () => resolve());
  if (abortMs) setTimeout(() => r.destroy(), abortMs);
});
(async () => {
  for (let i = 0; i < 3; i++) await get('/fast');
  await Promise.all([get('/slow', 100), get('/slow', 100)]);
  await get('/fast');
  await new Promise((r) => setTimeout(r, 600));
})();`,
    );
    const out = join(cwd, 'runs');
    const r = spawnSync(
      process.execPath,
      [
        cli,
        'profile',
        '-m',
        'cpu-prof',
        '--no-report',
        '--out',
        out,
        '-l',
        `"${process.execPath}" client.js`,
        '--',
        process.execPath,
        'server.js',
      ],
      { cwd, encoding: 'utf8', timeout: 90000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const runDir = join(out, readdirSync(out)[0]);
    const lines = readdirSync(runDir)
      .filter((f) => f.startsWith('requests-'))
      .flatMap((f) => readFileSync(join(runDir, f), 'utf8').trim().split('\n'))
      .map((l) => JSON.parse(l) as unknown[])
      .filter((v) => Array.isArray(v) && v[0] === 'q');
    const slow = lines.filter((v) => v[3] === '/slow');
    assert.equal(slow.length, 2, `both aborted requests are written: ${JSON.stringify(lines)}`);
    for (const v of slow) {
      assert.equal(v[4], 0, 'status 0: no response reached the client');
      assert.equal(v[7], 1, 'marked aborted');
      const ms = (v[6] as number) - (v[5] as number);
      assert.ok(ms >= 90 && ms < 390, `closed at the abort (~100 ms), not at the late end (400 ms): ${ms} ms`);
    }
    const report = await jsonReport(runDir);
    const slowRoute = route(report, 'GET /slow');
    const fast = route(report, 'GET /fast');
    assert.deepEqual([slowRoute.count, slowRoute.aborted], [2, 2]);
    assert.deepEqual([fast.count, fast.aborted], [4, 0]);
    assert.ok(slowRoute.p50 >= 90 && slowRoute.p50 < 390, `latency until the abort: ${slowRoute.p50} ms`);
    // The text report says which route's requests were aborted, and what their latency means.
    const text = spawnSync(process.execPath, [cli, 'report', runDir], { encoding: 'utf8' }).stdout;
    const slowLine = text.split('\n').find((l) => l.includes('GET /slow'));
    assert.match(slowLine ?? '', /\(2 aborted by the client\)/, text);
    assert.doesNotMatch(text.split('\n').find((l) => l.includes('GET /fast')) ?? '', /aborted/);
    assert.match(text, /aborted requests count with their time until the client closed the connection/);
    t.diagnostic(`/slow: ${slowRoute.count} requests, ${slowRoute.aborted} aborted, p50 ${slowRoute.p50} ms; /fast ${fast.count}`);
  },
);
