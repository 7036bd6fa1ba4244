import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  AttachSession,
  InspectorError,
  enableInspector,
  existingInspector,
  listNodeProcesses,
  listTargets,
  makeRunDir,
  parseAddress,
  saveAttachRun,
  type CpuProfile,
} from '../../src/launch/inspector';
import { loadProfile } from '../../src/core/importers';
import { HOT_LINE, LOOP_LINE, startTargetServer } from '../helpers/attachTarget';
import { freePort } from '../helpers/net';

interface Started {
  child: ChildProcess;
  appPort: number;
  dir: string;
  script: string;
}

async function startServer(t: { after: (fn: () => void) => void }, nodeArgs: string[]): Promise<Started> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'nf-attach-')));
  const { child, script, listening } = startTargetServer(dir, nodeArgs);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return { child, appPort: await listening, dir, script };
}

/** Sequential requests for `ms`: the load. */
async function load(port: number, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) {
    await new Promise<void>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '/' }, (r) => r.resume().on('end', resolve)).on('error', reject),
    );
    n++;
  }
  return n;
}

test(
  'a server started with --inspect is profiled while a load runs; the hot handler is at its file:line',
  { timeout: 60_000 },
  async (t) => {
    const inspectPort = await freePort();
    const s = await startServer(t, [`--inspect=127.0.0.1:${inspectPort}`]);
    const targets = await listTargets(parseAddress(`127.0.0.1:${inspectPort}`));
    assert.equal(targets.length, 1);
    assert.equal(targets[0].url, pathToFileURL(s.script).href);
    assert.match(targets[0].webSocketDebuggerUrl, new RegExp(`^ws://127\\.0\\.0\\.1:${inspectPort}/`));

    // Node 20 allows several inspector sessions: another client being attached must not stop us.
    const other = await AttachSession.start(targets[0], { chunkMs: 0, sourceMaps: false });
    const session = await AttachSession.start(targets[0], { samplingIntervalUs: 500, chunkMs: 700 });
    const requests = await load(s.appPort, 2000);
    const result = await session.stop();
    await other.stop();
    assert.equal(result.lost, undefined);
    assert.ok(result.profile, 'a profile came back');
    assert.ok(result.parts >= 2, `the profile was taken in pieces (${result.parts}) and merged`);
    assert.equal(result.profile.samples!.length, result.profile.timeDeltas!.length);
    assert.equal(result.nodeVersion, process.version);
    assert.equal(
      result.sourceMaps[pathToFileURL(s.script).href]?.slice(0, 29),
      'data:application/json;base64,',
      'sourceMapURL collected from Debugger.scriptParsed',
    );

    const out = mkdtempSync(join(tmpdir(), 'nf-attach-out-'));
    t.after(() => rmSync(out, { recursive: true, force: true }));
    const dir = await makeRunDir(join(out, '.nodeflame'));
    assert.match(dir, /\.nodeflame[\\/]\d{8}-\d{6}-attach$/);
    const saved = await saveAttachRun(
      dir,
      { ...result, profile: result.profile },
      { target: targets[0], stoppedBy: 'user', samplingIntervalUs: 500 },
    );
    const raw = JSON.parse(readFileSync(saved.profilePath, 'utf8')) as CpuProfile;
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    assert.equal(run.mode, 'attach');
    assert.equal(run.target.address, `127.0.0.1:${inspectPort}`);
    assert.ok(run.durationMs >= 2000);
    assert.ok(JSON.parse(readFileSync(join(dir, 'sourcemaps.json'), 'utf8'))[pathToFileURL(s.script).href]);

    // Raw check: the handler's own node, at the right file and 0-based line, with its loop line hot.
    const hot = raw.nodes.filter((n) => n.callFrame.functionName === 'hotHandler');
    assert.ok(hot.length > 0, 'hotHandler is in the profile');
    for (const n of hot) {
      assert.equal(n.callFrame.url, pathToFileURL(s.script).href);
      assert.equal(n.callFrame.lineNumber + 1, HOT_LINE);
    }
    const ticks = hot.flatMap((n) => n.positionTicks ?? []).filter((p) => p.line === LOOP_LINE);
    assert.ok(ticks.length > 0, 'the loop line has ticks');

    // Through the shared importer: hotHandler carries most of the busy samples.
    const p = await loadProfile(saved.profilePath);
    const idx = p.frames.findIndex((f) => f.name === 'hotHandler');
    assert.ok(idx >= 0);
    assert.equal(p.frames[idx].file, s.script);
    assert.equal(p.frames[idx].line, HOT_LINE);
    let hotTotal = 0;
    let busy = 0;
    const total = p.tree.total;
    for (let n = 1; n < p.tree.count; n++) {
      const f = p.frames[p.tree.frame[n]];
      if (f.name === 'hotHandler' && p.frames[p.tree.frame[p.tree.parent[n]]]?.name !== 'hotHandler') hotTotal += total[n];
      if (f.category !== 'idle' && f.category !== 'program') busy += p.tree.self[n];
    }
    console.log(
      `[attach] ${requests} requests, ${result.samples} samples in ${result.parts} parts, hotHandler ${((100 * hotTotal) / busy).toFixed(1)}% of busy samples`,
    );
    assert.ok(hotTotal / busy > 0.5, `hotHandler should dominate busy samples: ${hotTotal}/${busy}`);
    assert.ok((p.lineHits.get(s.script)?.get(LOOP_LINE)?.self ?? 0) > 0, 'line heat on the loop line');
  },
);

test('connection lost mid-profile: the pieces already received are kept, and the loss is reported', { timeout: 30_000 }, async (t) => {
  const inspectPort = await freePort();
  const s = await startServer(t, [`--inspect=127.0.0.1:${inspectPort}`]);
  const [target] = await listTargets({ host: '127.0.0.1', port: inspectPort });
  const session = await AttachSession.start(target, { chunkMs: 400 });
  let lostEvent: InspectorError | undefined;
  session.onLost((e) => (lostEvent = e));
  await load(s.appPort, 1000);
  s.child.kill('SIGKILL');
  await new Promise((r) => s.child.once('exit', r));
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(lostEvent, 'onLost fired');
  const result = await session.stop();
  assert.ok(result.lost, 'the result says the connection was lost');
  assert.equal(result.lost.code, 'lost');
  assert.ok(result.profile && result.samples > 0, `kept samples from complete pieces (${result.samples})`);
  assert.match(result.lost.message, /Kept the \d+ samples/);
});

test(
  'SIGUSR1 switches on the inspector of a listed local Node process',
  { timeout: 30_000, skip: process.platform === 'win32' },
  async (t) => {
    const inspectPort = await freePort();
    // --inspect-port only chooses the port SIGUSR1 will open; the inspector starts off.
    const s = await startServer(t, [`--inspect-port=127.0.0.1:${inspectPort}`]);
    await assert.rejects(listTargets({ host: '127.0.0.1', port: inspectPort }), (e: InspectorError) => e.code === 'refused');
    const proc = (await listNodeProcesses()).find((p) => p.pid === s.child.pid);
    assert.ok(proc, 'the server is listed among local Node processes');
    assert.match(proc.command, /server\.js/);
    const targets = await enableInspector(proc);
    assert.equal(targets[0].address, `127.0.0.1:${inspectPort}`);
    const session = await AttachSession.start(targets[0], { chunkMs: 0 });
    await load(s.appPort, 1000);
    const r = await session.stop();
    assert.ok(r.profile, 'a profile came back');
    const names = r.profile.nodes.map((n) => n.callFrame.functionName);
    assert.ok(names.includes('hotHandler'), `hotHandler sampled; got ${names.join(', ')}`);
    // Asking again finds the open inspector without signalling twice.
    assert.equal((await enableInspector(proc))[0].address, `127.0.0.1:${inspectPort}`);
  },
);

test('a process started with --inspect on any port is found at that port, without SIGUSR1', { timeout: 30_000 }, async (t) => {
  const inspectPort = await freePort();
  const named = await startServer(t, [`--inspect=127.0.0.1:${inspectPort}`]);
  // Port 0: the system picks it; only the process's listening sockets tell (Linux).
  const zero = await startServer(t, ['--inspect=0']);
  const procs = await listNodeProcesses();
  const p = procs.find((x) => x.pid === named.child.pid);
  assert.ok(p, 'the server is listed');
  assert.deepEqual([p.inspector?.on, p.inspector?.address], [true, { host: '127.0.0.1', port: inspectPort }]);
  const targets = await existingInspector(p);
  assert.equal(targets.length, 1);
  assert.equal(targets[0].address, `127.0.0.1:${inspectPort}`);
  assert.equal(targets[0].url, pathToFileURL(named.script).href);
  // enableInspector finds it there too, before any signal.
  assert.equal((await enableInspector(p))[0].address, `127.0.0.1:${inspectPort}`);
  const session = await AttachSession.start(targets[0], { chunkMs: 0 });
  await load(named.appPort, 800);
  const r = await session.stop();
  assert.ok(
    r.profile?.nodes.some((n) => n.callFrame.functionName === 'hotHandler'),
    'hotHandler sampled through the named port',
  );
  if (process.platform === 'linux') {
    const z = procs.find((x) => x.pid === zero.child.pid)!;
    assert.equal(z.inspector?.address.port, 0);
    const [found] = await existingInspector(z);
    assert.ok(found, `the port-0 inspector is found through the listening sockets ${z.listening?.join(', ')}`);
    assert.notEqual(Number(found.address.split(':').pop()), zero.appPort);
    assert.equal(found.url, pathToFileURL(zero.script).href);
  }
});

test('errors name the next step: nothing listening, not an inspector, bad address', { timeout: 30_000 }, async (t) => {
  const closed = await freePort();
  await assert.rejects(
    listTargets({ host: '127.0.0.1', port: closed }),
    (e: InspectorError) => e.code === 'refused' && /Nothing is listening on 127\.0\.0\.1:\d+.*--inspect/.test(e.message),
  );
  const s = await startServer(t, []);
  await assert.rejects(
    listTargets({ host: '127.0.0.1', port: s.appPort }),
    (e: InspectorError) => e.code === 'not-inspector' && /not as a Node\.js inspector/.test(e.message),
  );
  assert.throws(
    () => parseAddress('localhost:99999'),
    (e: InspectorError) => e.code === 'bad-address',
  );
  assert.throws(
    () => parseAddress('a b:1'),
    (e: InspectorError) => e.code === 'bad-address',
  );
  assert.deepEqual(parseAddress('localhost:9230'), { host: 'localhost', port: 9230 });
  assert.deepEqual(parseAddress('9231'), { host: '127.0.0.1', port: 9231 });
  assert.deepEqual(parseAddress('ws://[::1]:9232/abc'), { host: '::1', port: 9232 });
  assert.deepEqual(parseAddress('docker-host'), { host: 'docker-host', port: 9229 });
  // A stale target id (the process restarted): the inspector refuses the socket.
  const inspectPort = await freePort();
  const s2 = await startServer(t, [`--inspect=127.0.0.1:${inspectPort}`]);
  void s2;
  const [target] = await listTargets({ host: 'localhost', port: inspectPort });
  assert.equal(target.address, `localhost:${inspectPort}`);
  await assert.rejects(
    AttachSession.start({
      ...target,
      webSocketDebuggerUrl: target.webSocketDebuggerUrl.replace(/[^/]+$/, '00000000-0000-0000-0000-000000000000'),
    }),
    (e: InspectorError) => e.code === 'rejected' || e.code === 'lost',
  );
});
