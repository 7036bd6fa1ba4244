// A perf run whose frames cannot all be named: a native addon stripped as distributions ship libraries, so perf
// leaves its hot static function unnamed (library+offset). When "Profile Node App" opens the run, a warning
// notification says which frames could not be named, as the Summary and the CLI do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, startVSCode } from './helpers';
import { buildStrippedAddon, strippedAddonSkip } from '../helpers/strippedAddon';

const skip = strippedAddonSkip;

/** Every notification (toasts and the ones already hidden) with the severity its icon shows. */
async function notificationsWithSeverity(page: Page): Promise<{ message: string; severity: string }[]> {
  const bell = page.locator('.part.statusbar [id="status.notifications"] a, .part.statusbar [id="status.notifications"]').first();
  const center = page.locator('.notifications-center');
  const wasOpen = await center.isVisible().catch(() => false);
  if (!wasOpen) await bell.click({ timeout: 5_000 });
  await center.waitFor({ state: 'visible', timeout: 5_000 });
  const items = await center.locator('.notification-list-item').evaluateAll((els) =>
    els.map((el) => ({
      message: (el.querySelector('.notification-list-item-message')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
      severity: /codicon-(error|warning|info)\b/.exec(el.querySelector('.notification-list-item-icon')?.className ?? '')?.[1] ?? '',
    })),
  );
  if (!wasOpen) await bell.click({ timeout: 5_000 }).catch(() => undefined);
  return items;
}

const UNNAMED =
  /Node Flame: some frames of this run could not be named\..*native code without symbols is shown as library\+offset \([^)]*libhot\.so/;

test('a perf run with frames that cannot be named opens with a warning saying which', { skip, timeout: 400_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-unnamed-'));
  buildStrippedAddon(ws, 1500);
  mkdirSync(join(ws, '.vscode'));
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.program': 'app.js', 'nodeFlame.mode': 'perf' }));
  // No debug files nor debuginfod server: the library stays library+offset.
  const vs = await startVSCode({ workspace: ws, name: 'unnamed' });
  let failed = true;
  try {
    await vs.waitForCommand('Node Flame: Profile Node App');
    await vs.runCommand('Node Flame: Profile Node App');
    const runsDir = join(ws, '.nodeflame');
    let runDir = '';
    await eventually(
      async () => (existsSync(runsDir) ? readdirSync(runsDir).filter((n) => /-perf$/.test(n)) : []),
      (dirs) => {
        assert.equal(dirs.length, 1, 'one perf run folder');
        runDir = join(runsDir, dirs[0]);
        assert.ok(existsSync(join(runDir, 'run.json')), 'the run has ended');
      },
      120_000,
    );
    const info = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { profiles: string[] };
    // The run opens as its run folder, whatever its files.
    assert.ok(info.profiles.length > 0, 'the run wrote a profile');
    const label = basename(runDir);
    // A live view painted before the app reached the addon may not hold it: read the view painted after the run ended.
    const frame = await vs.webviewFrame(
      `body[data-profile="${label}"][data-first-paint-ms]:is([data-final-paint-ms], :not([data-live])) svg g.frame`,
      120_000,
    );
    const names = await frame.$$eval('svg g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
    assert.ok(
      names.some((n) => /libhot\.so\+0x[0-9a-f]+/.test(n)),
      `the stripped function is drawn as library+offset: ${names.filter((n) => /libhot/.test(n)).join(' | ')}`,
    );
    const warned = await eventually(
      () => notificationsWithSeverity(vs.page),
      (items) =>
        assert.ok(
          items.some((n) => UNNAMED.test(n.message)),
          `no unnamed-frames warning among: ${JSON.stringify(items)}`,
        ),
      30_000,
    );
    const item = warned.find((n) => UNNAMED.test(n.message))!;
    console.log(`[e2e] ${item.severity}: ${item.message}`);
    assert.equal(item.severity, 'warning', 'a warning, not an error or an information message');
    await vs.screenshot('unnamed-frames');
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});
