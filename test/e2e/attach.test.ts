import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startVSCode, repoRoot } from './helpers';
import { freePort, killTree, spawnGroup } from './helpers/processes';
import { startTargetServer } from '../helpers/attachTarget';

function hit(port: number): Promise<void> {
  return new Promise((resolve) =>
    get({ host: '127.0.0.1', port, path: '/' }, (r) => r.resume().on('end', () => resolve())).on('error', () => resolve()),
  );
}

test('"Profile Running Process…" on a server started with --inspect: typed address, Stop → flame graph', { timeout: 300_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-attach-'));
  // `.nodeflame` is an activation event; runs are saved inside it.
  mkdirSync(join(ws, '.nodeflame'));
  const inspectPort = await freePort();
  const { child: app, listening } = startTargetServer(ws, [`--inspect=127.0.0.1:${inspectPort}`], spawnGroup);
  const appPort = await listening;
  const vs = await startVSCode({ workspace: ws, name: 'attach' });
  let failed = true;
  try {
    await vs.waitForLog(/activated in/, 'nodeFlame', 60_000);
    await vs.waitForCommand('Node Flame: Profile Running Process…');
    await vs.runCommand('Node Flame: Profile Running Process…');
    await vs.quickPickWait();
    // Typing host:port into the picker offers it directly (the container / forwarded-port path).
    await vs.quickPickType(`127.0.0.1:${inspectPort}`);
    await vs.quickPickSelect(new RegExp(`Connect to 127\\.0\\.0\\.1:${inspectPort}`));

    const deadline = Date.now() + 20_000;
    while (!(await vs.statusBarTexts()).some((t) => /Profiling \(attached\)/.test(t))) {
      assert.ok(
        Date.now() < deadline,
        `no "Profiling (attached)" status bar item; status bar: ${JSON.stringify(await vs.statusBarTexts())}`,
      );
      await new Promise((r) => setTimeout(r, 200));
    }
    // The flame graph's panel is open while the process is profiled, and turns into the live flame graph (its bar
    // with Stop) once the first second is recorded.
    const waiting = await vs.webviewFrame('#app[data-loading*="Node Flame: profiling"]', 30_000);
    await eventually(
      () => waiting.evaluate(() => document.body.dataset.live ?? ''),
      (live) => assert.equal(live, 'true'),
      30_000,
    );
    const loadUntil = Date.now() + 2000;
    while (Date.now() < loadUntil) await hit(appPort);
    // The handler under load shows in the live graph while the process is still attached.
    await waiting.locator('g.frame[name="hotHandler"]').first().waitFor({ timeout: 20_000 });
    await vs.screenshot('attach-profiling');

    // Stop from the live bar's button (the profile run test stops from the status bar).
    await waiting.locator('.live-bar [data-action="stop"]').click();
    let frame = await vs.webviewFrame('#app svg', 60_000);
    const shown = Date.now() + 20_000;
    // The panel's page is set again when the profile comes (the waiting page gives way): the frame is looked up anew.
    while (
      (await frame
        .locator('g.frame[name="hotHandler"]')
        .count()
        .catch(() => 0)) === 0
    ) {
      assert.ok(Date.now() < shown, 'the flame graph never showed hotHandler');
      await new Promise((r) => setTimeout(r, 250));
      frame = await vs.webviewFrame('#app svg', 5_000);
    }
    await vs.screenshot('attach-flamegraph');
    await eventually(
      () => vs.statusBarTexts(),
      (bar) => assert.ok(!bar.some((t) => /Profiling \(attached\)/.test(t)), 'the Stop item is gone'),
    );

    const runs = readdirSync(join(ws, '.nodeflame')).filter((d) => /^\d{8}-\d{6}-attach$/.test(d));
    assert.equal(runs.length, 1, `one attach run folder: ${runs}`);
    const dir = join(ws, '.nodeflame', runs[0]);
    assert.ok(existsSync(join(dir, 'profile.cpuprofile')));
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    assert.equal(run.mode, 'attach');
    assert.equal(run.stoppedBy, 'user');
    assert.equal(run.target.address, `127.0.0.1:${inspectPort}`);
    const log = await vs.waitForLog(/attach: (\d+) samples in (\d+) ms, stopped by user/);
    console.log(`[e2e] attach: ${log[1]} samples in ${log[2]} ms`);
    assert.equal(app.exitCode, null, 'the profiled server keeps running after the profile');
    failed = false;
  } finally {
    await vs.close({ failed });
    if (app.pid) await killTree(app.pid);
    rmSync(ws, { recursive: true, force: true });
  }
});

/**
 * The guide app under --inspect on two free ports, tried again on new ones when one was taken between the kernel
 * naming it free and the app binding it (stop 45's CI: the app exited 1 before listening).
 */
async function startGuideApp(ws: string): Promise<{ app: ReturnType<typeof spawnGroup>; inspectPort: number; appPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const inspectPort = await freePort();
    let appPort = await freePort();
    while (appPort === inspectPort) appPort = await freePort();
    const app = spawnGroup(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, 'app.js'], {
      cwd: ws,
      env: { ...process.env, PORT: String(appPort), NODE_PATH: join(repoRoot, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    app.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const listening = await new Promise<boolean>((resolve) => {
      app.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve(true));
      app.once('exit', () => resolve(false));
    });
    if (listening) return { app, inspectPort, appPort };
    const taken = /EADDRINUSE|address already in use/.test(stderr);
    if (!taken || attempt === 3) throw new Error(`app exited (${app.exitCode}) before listening: ${stderr.slice(-2000)}`);
    console.log(`[e2e] ports ${inspectPort}/${appPort} were taken; again on new ones`);
  }
}

test(
  '"Profile Running Process…" on the guide app started with --inspect=127.0.0.1:<random port>: picked from the list, no dialog, pbkdf2Sync drawn',
  { timeout: 300_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-attach-inspect-'));
    mkdirSync(join(ws, '.nodeflame'));
    copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
    const { app, inspectPort, appPort } = await startGuideApp(ws);
    const base = `http://127.0.0.1:${appPort}`;
    assert.equal((await fetch(`${base}/newUser?username=matt&password=password`)).status, 200);
    const vs = await startVSCode({ workspace: ws, name: 'attach-inspect' });
    let failed = true;
    try {
      await vs.waitForLog(/activated in/, 'nodeFlame', 60_000);
      await vs.waitForCommand('Node Flame: Profile Running Process…');
      await vs.runCommand('Node Flame: Profile Running Process…');
      await vs.quickPickWait();
      // The process's row (label "node <pid>"; a typed number would be offered as an address instead).
      await vs.quickPickType('app.js');
      // The list says where its inspector is, from the command line.
      const described = vs.page
        .locator('.quick-input-widget .monaco-list-row', { hasText: `node ${app.pid}` })
        .locator('.label-description');
      await eventually(
        () => described.first().innerText({ timeout: 1_000 }),
        (d) => assert.equal(d.trim(), `inspector on 127.0.0.1:${inspectPort}`),
        30_000,
      );
      await vs.quickPickSelect(new RegExp(`^node\\S* ${app.pid}$`), 30_000);
      await eventually(
        async () => [await vs.dialogMessage(), await vs.statusBarTexts()] as const,
        ([dialog, bar]) => {
          assert.equal(dialog, undefined, `no "Enable the inspector" dialog: ${dialog}`);
          assert.ok(
            bar.some((t) => /Profiling \(attached\)/.test(t)),
            `attached: ${JSON.stringify(bar)}`,
          );
        },
        20_000,
      );
      await vs.webviewFrame('#app[data-loading*="Node Flame: profiling"]', 30_000);
      for (let i = 0; i < 30; i++) await fetch(`${base}/auth?username=matt&password=password`);
      assert.equal(await vs.dialogMessage(), undefined, 'still no dialog');
      // The live graph may have taken the waiting page by now: Stop from the status bar.
      await vs.page.locator('.part.statusbar .statusbar-item', { hasText: 'Profiling (attached)… Stop' }).click();
      const frame = await vs.webviewFrame('#app svg g.frame[name="pbkdf2Sync"]', 60_000);
      assert.ok(await frame.locator('g.frame[name="pbkdf2Sync"]').count(), 'pbkdf2Sync is drawn');
      const run = readdirSync(join(ws, '.nodeflame')).find((d) => /^\d{8}-\d{6}-attach$/.test(d));
      assert.ok(run, 'an attach run folder');
      // A live attach draws pbkdf2Sync before Stop has saved the run: run.json comes with the final profile.
      const info = await eventually(
        async () => JSON.parse(readFileSync(join(ws, '.nodeflame', run, 'run.json'), 'utf8')) as { target?: { address?: string } },
        (i) => assert.ok(i.target, 'the run saved with its target'),
        30_000,
      );
      assert.equal(info.target?.address, `127.0.0.1:${inspectPort}`, 'connected at the port the command line names');
      assert.equal(app.exitCode, null, 'the app keeps running');
      failed = false;
    } finally {
      await vs.close({ failed });
      if (app.pid) await killTree(app.pid);
      rmSync(ws, { recursive: true, force: true });
    }
  },
);

test(
  '"Profile Running Process…" with the heap profile: the live flame graph of bytes fills in while attached, Stop keeps it',
  { timeout: 300_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-attach-heap-'));
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.attach.profile': 'heap' }));
    mkdirSync(join(ws, '.nodeflame'));
    // Each request keeps what keepOnRequest makes: the allocating function the heap view must name.
    writeFileSync(
      join(ws, 'server.js'),
      `'use strict';
const http = require('http');
const kept = [];
function keepOnRequest() { const batch = []; for (let i = 0; i < 2000; i++) batch.push('row ' + i + ' ' + Math.random()); kept.push(batch); }
http.createServer((req, res) => { keepOnRequest(); res.end('ok'); }).listen(0, '127.0.0.1', function () { console.log('LISTENING ' + this.address().port); });
`,
    );
    const inspectPort = await freePort();
    const app = spawnGroup(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, 'server.js'], {
      cwd: ws,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const appPort = await new Promise<number>((resolve, reject) => {
      app.stdout!.on('data', (d: Buffer) => {
        const m = /LISTENING (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
      app.once('exit', (c) => reject(new Error(`server exited (${c}) before listening`)));
    });
    const vs = await startVSCode({ workspace: ws, name: 'attach-heap' });
    let failed = true;
    try {
      await vs.waitForLog(/activated in/, 'nodeFlame', 60_000);
      await vs.waitForCommand('Node Flame: Profile Running Process…');
      await vs.runCommand('Node Flame: Profile Running Process…');
      await vs.quickPickWait();
      await vs.quickPickType(`127.0.0.1:${inspectPort}`);
      await vs.quickPickSelect(new RegExp(`Connect to 127\\.0\\.0\\.1:${inspectPort}`));
      const waiting = await vs.webviewFrame('#app[data-loading*="Node Flame: profiling"]', 30_000);
      const until = Date.now() + 4000;
      while (Date.now() < until) await hit(appPort);
      await eventually(
        () => waiting.evaluate(() => document.body.dataset.live ?? ''),
        (live) => assert.equal(live, 'true', 'the live view took the waiting page'),
        30_000,
      );
      // A heap profile has no sample times: no "last N s" window is offered.
      assert.equal(await waiting.locator('.live-bar [data-action="window"]').getAttribute('hidden'), '', 'no window for bytes');
      // The allocating function shows while the process is still attached.
      await waiting.locator('g.frame[name="keepOnRequest"]').first().waitFor({ timeout: 30_000 });
      await vs.screenshot('attach-heap-live');
      await waiting.locator('.live-bar [data-action="stop"]').click();
      const run = await eventually(
        async () =>
          readdirSync(join(ws, '.nodeflame')).find(
            (d) => /^\d{8}-\d{6}-attach$/.test(d) && existsSync(join(ws, '.nodeflame', d, 'run.json')),
          ) ?? '',
        (r) => assert.ok(r, 'the attach run saved'),
        60_000,
      );
      const dir = join(ws, '.nodeflame', run);
      assert.ok(existsSync(join(dir, 'profile.heapprofile')), 'the heap profile saved at detach');
      const frame = await vs.webviewFrame('#app svg g.frame[name="keepOnRequest"]', 60_000);
      await eventually(
        () => frame.evaluate(() => document.body.dataset.live ?? ''),
        (live) => assert.equal(live, 'false', 'the final profile replaced the live one'),
        30_000,
      );
      assert.equal(app.exitCode, null, 'the server keeps running');
      failed = false;
    } finally {
      await vs.close({ failed });
      if (app.pid) await killTree(app.pid);
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
