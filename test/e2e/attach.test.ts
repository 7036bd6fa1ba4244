import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode } from './helpers';
import { freePort, killTree, spawnGroup } from './helpers/processes';
import { startTargetServer } from '../helpers/attachTarget';

function hit(port: number): Promise<void> {
  return new Promise((resolve) => get({ host: '127.0.0.1', port, path: '/' }, (r) => r.resume().on('end', () => resolve())).on('error', () => resolve()));
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
    // Also waits until the palette knows the extension's commands.
    assert.ok((await vs.paletteItems('Node Flame:')).includes('Node Flame: Profile Running Process…'));
    await vs.runCommand('Node Flame: Profile Running Process…');
    await vs.quickPickWait();
    // Typing host:port into the picker offers it directly (the container / forwarded-port path).
    await vs.quickPickType(`127.0.0.1:${inspectPort}`);
    await vs.quickPickSelect(new RegExp(`Connect to 127\\.0\\.0\\.1:${inspectPort}`));

    const deadline = Date.now() + 20_000;
    while (!(await vs.statusBarTexts()).some((t) => /Profiling \(attached\)/.test(t))) {
      assert.ok(Date.now() < deadline, `no "Profiling (attached)" status bar item; status bar: ${JSON.stringify(await vs.statusBarTexts())}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // The flame graph's panel waits open while the process is profiled.
    const waiting = await vs.webviewFrame('#app[data-loading*="Node Flame: profiling"] .loading', 30_000);
    assert.match(await waiting.locator('.loading').innerText(), /The flame graph opens here when the run ends/);
    await vs.screenshot('attach-profiling');
    const loadUntil = Date.now() + 2000;
    while (Date.now() < loadUntil) await hit(appPort);

    // Stop from the waiting panel's button (the profile run test stops from the status bar).
    await waiting.locator('vscode-button.stop-run', { hasText: 'Stop profiling' }).click();
    const frame = await vs.webviewFrame('#app svg', 60_000);
    const shown = Date.now() + 20_000;
    while (!(await frame.content()).includes('hotHandler')) {
      assert.ok(Date.now() < shown, 'the flame graph never showed hotHandler');
      await new Promise((r) => setTimeout(r, 250));
    }
    await vs.screenshot('attach-flamegraph');
    assert.ok(!(await vs.statusBarTexts()).some((t) => /Profiling \(attached\)/.test(t)), 'the Stop item is gone');

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
