import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode, extensionId } from './helpers';

const commands = [
  'Node Flame: Profile Node App',
  'Node Flame: Open Profile…',
  'Node Flame: Compare Profiles…',
  'Node Flame: Stop Profiling',
  'Node Flame: Clear Hot Spots',
  'Node Flame: Profile Running Process…',
];

test('the packaged extension installs, activates without errors and lists its commands', { timeout: 300_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-activation-'));
  writeFileSync(join(ws, 'app.js'), 'console.log("hello");\n');
  // `.nodeflame` in the workspace is an activation event: the extension starts with the window.
  writeFileSync(join(ws, '.nodeflame'), '');
  const vs = await startVSCode({ workspace: ws, name: 'activation' });
  let failed = true;
  try {
    const activated = await vs.waitForLog(/activated in ([\d.]+) ms/, 'nodeFlame', 60_000);
    const ms = Number(activated[1]);
    console.log(`[e2e] Node Flame activated in ${ms} ms`);
    assert.ok(ms < 500, `activate() took ${ms} ms`);

    const items = await vs.paletteItems('Node Flame:');
    for (const c of commands) assert.ok(items.includes(c), `palette lacks "${c}"; shows ${JSON.stringify(items)}`);

    const hostLog = vs.extensionHostLog();
    const hostErrors = hostLog.split('\n').filter((l) => l.includes(extensionId) && /\[error\]|Activating extension .* failed/i.test(l));
    assert.deepEqual(hostErrors, [], 'extension host logged errors for node-flame');
    assert.match(
      hostLog,
      new RegExp(`ExtensionService#_doActivateExtension ${extensionId.replace('.', '\\.')}`),
      'extension host never activated node-flame',
    );
    const errs = (await vs.notifications({ all: true })).filter((n) => /node.?flame/i.test(n) && /error|fail/i.test(n));
    assert.deepEqual(errs, []);

    // VS Code's own figure covers loading dist/extension.js and calling activate().
    const running = await vs.runningExtensions();
    const ours = running.find((r) => r.name === 'Node Flame');
    assert.ok(ours, `Node Flame is not running: ${JSON.stringify(running)}`);
    console.log(`[e2e] VS Code reports Node Flame "${ours.activation}"`);
    // The goal is 50 ms on an idle machine; the bound leaves room for a loaded shared CI box (seen: 184 ms at
    // load average 18 on 2 cores) and still catches an activation that does real work up front.
    assert.ok(ours.ms <= 500, `activation took ${ours.activation}`);

    await vs.page.keyboard.press('F1');
    await vs.quickPickType('>Node Flame');
    await vs.screenshot('commands');
    await vs.quickPickClose();
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});
