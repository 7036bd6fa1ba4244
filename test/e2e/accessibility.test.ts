// The viewer's accessibility in a real VS Code, on a --prof profile of the guide's Express app:
// a keyboard walk with no mouse event (open the profile, arrow to pbkdf2Sync and hear its file:line, zoom, read the
// Accessible View, apply Focus, open the Timeline, select a range and clear it), then axe-core run inside the
// webview's page in every view, in a dark and a high-contrast theme: no serious or critical violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { artifactsRoot, eventually, repoRoot, startVSCode, type VSCode } from './helpers';
import { profileExpressApp } from '../helpers/expressApp';
import { exportWithCli, recordProfLog } from '../helpers/exportFixture';
import { CHROMIUM_ARGS, chromiumPath } from './helpers/paths';
import { activeElementOf, axeCheck, countMouseEvents, editorLines, mouseEventsOf, type AxeFigure } from './helpers/a11y';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';
/** As the Color Theme picker names them. */
const DARK = 'Dark Modern';
const HC = 'Dark High Contrast';
/** Each theme the views are checked in, with the class VS Code gives the webview's body for it. */
const THEMES: [name: string, bodyClass: string][] = [
  [DARK, 'vscode-dark'],
  [HC, 'vscode-high-contrast'],
  ['Light Modern', 'vscode-light'],
  ['Light High Contrast', 'vscode-high-contrast-light'],
];

const said = (frame: Frame) => frame.locator('.a11y-live').innerText();

async function press(page: Page, key: string, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

/** Presses `key` until `done` holds of the webview's focused element (at most `max` times); the elements passed. */
async function pressUntil(page: Page, frame: Frame, key: string, done: (el: string) => boolean, max = 40): Promise<string[]> {
  const passed: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const el = await activeElementOf(frame);
    passed.push(el);
    if (done(el)) return passed;
  }
  assert.fail(`${key} never reached the element wanted: ${passed.join(' → ')}`);
}

/** Picks a colour theme the way a user does: the palette's Color Theme picker. */
async function setTheme(vs: VSCode, theme: string): Promise<void> {
  await vs.runCommand('Preferences: Color Theme').catch(async (e: Error) => {
    throw new Error(`${e.message}; the palette has: ${(await vs.paletteItems('Theme')).join(' | ')}`);
  });
  await vs.quickPickSelect(theme);
}

test(
  'accessibility: a keyboard-only walk, the Accessible View, axe in every view (dark and high contrast)',
  { timeout: 900_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-a11y-'));
    copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
    const log = await profileExpressApp({ cwd: ws, profiler: 'prof', load: { seconds: 3, connections: 4 } });
    const label = log.split('/').pop()!;
    const axeSource = readFileSync(join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8');
    const vs = await startVSCode({
      workspace: ws,
      name: 'accessibility',
      viewport: { width: 1400, height: 1000 },
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
    let failed = true;
    const shots: string[] = [];
    try {
      const page = vs.page;
      await vs.waitForCommand(SHOW);
      await countMouseEvents(page.mainFrame());

      // ---- the keyboard walk: the palette, the path, then only the webview's keys ----
      await press(page, 'F1');
      await page.keyboard.type(`>${SHOW}`);
      await page.waitForTimeout(500);
      await press(page, 'Enter');
      await page.locator('.quick-input-widget input').first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(300);
      await page.keyboard.type(log);
      await press(page, 'Enter');
      const frame = await vs.webviewFrame(`body[data-profile="${label}"][data-first-paint-ms] svg g.frame`, 120_000);
      await countMouseEvents(frame);
      // Into the editor group the viewer is in, then Tab through the page to the flame graph.
      await press(page, 'Control+1');
      const order = await pressUntil(page, frame, 'Tab', (el) => el.includes('data-tree=top'));
      console.log(`[a11y] tab order to the flame graph: ${order.join(' → ')}`);
      // Up: the heaviest callee (the graph's root is at the bottom), until pbkdf2Sync is said.
      let heard = '';
      for (let i = 0; i < 80 && !heard.startsWith('pbkdf2Sync,'); i++) {
        await press(page, 'ArrowUp');
        heard = await eventually(
          () => said(frame),
          (t) => assert.ok(t.length > 0),
        );
      }
      console.log(`[a11y] live region at pbkdf2Sync: "${heard}"`);
      const where = /^pbkdf2Sync, (node:internal\/crypto\/pbkdf2:\d+), total ([\d.]+)%, self ([\d.<]+)%, depth (\d+), (.+)$/.exec(heard);
      assert.ok(where, `the live region names pbkdf2Sync with its file:line, shares and depth: "${heard}"`);
      assert.ok(Number(where[2]) > 30, `pbkdf2Sync's total share ${where[2]} %`);
      // Space zooms (Enter would also open the source with the focus).
      await press(page, 'Space');
      await frame.locator('.crumbs [aria-current="true"]', { hasText: 'pbkdf2Sync' }).waitFor({ timeout: 10_000 });
      shots.push(await vs.screenshot('a11y-focused-frame'));

      // The Accessible View (Alt+F2): a read-only text editor beside, with the /auth handler → pbkdf2Sync path.
      await press(page, 'Alt+F2');
      const lines = await editorLines(page, /accessible view/, 4);
      const hot = lines.find((l) => /^1\. \d+\.\d %: /.test(l)) ?? '';
      console.log(`[a11y] Accessible View: ${lines.length} lines read; ${hot}`);
      assert.match(hot, /^1\. \d+\.\d %: \(anonymous\) \S*app\.js:23:\d+ → pbkdf2Sync node:internal\/crypto\/pbkdf2:\d+:\d+ → /);
      const handler = lines.findIndex((l) => /^ *\(anonymous\) \S*app\.js:23:\d+: total \d+\.\d %, self \d+\.\d %$/.test(l));
      assert.ok(handler >= 0, `the handler in the tree:\n${lines.join('\n')}`);
      const indent = /^ */.exec(lines[handler])![0].length;
      const callee = lines[handler + 1] ?? '';
      assert.match(
        callee,
        new RegExp(`^ {${indent + 2}}pbkdf2Sync node:internal/crypto/pbkdf2:\\d+:\\d+: total \\d+\\.\\d %, self \\d+\\.\\d %$`),
      );
      console.log(`[a11y] tree: ${lines[handler].trim()} → ${callee.trim()}`);
      shots.push(await vs.screenshot('a11y-accessible-view'));

      // Back to the viewer's group: Focus on the function (F), then the Timeline through the tab headers.
      await press(page, 'Control+1');
      const back = await pressUntil(page, frame, 'Tab', (el) => el.includes('data-tree=top'));
      console.log(`[a11y] back in the viewer, Tab to the graph: ${back.length} presses`);
      await press(page, 'f');
      await frame.locator('.xf-chip', { hasText: 'pbkdf2Sync' }).first().waitFor({ timeout: 15_000 });
      const toTabs = await pressUntil(page, frame, 'Shift+Tab', (el) => el.startsWith('vscode-tab-header'));
      console.log(`[a11y] Shift+Tab to the tabs: ${toTabs.join(' → ')}`);
      await pressUntil(page, frame, 'ArrowRight', (el) => el.includes('data-tab=timeline'), 6);
      await press(page, 'Enter');
      const tl = frame.locator('.timeline-tab');
      await eventually(
        () => tl.getAttribute('data-boxes'),
        (b) => assert.ok(Number(b) > 0, 'the Timeline is drawn'),
        30_000,
      );
      await pressUntil(page, frame, 'Tab', (el) => el.includes('tl-chart-box'));
      await press(page, 'Shift+ArrowRight', 4);
      const selected = await eventually(
        () =>
          frame
            .locator('.tl-said')
            .textContent()
            .then((t) => t ?? ''),
        (t) => assert.match(t, /^Selected range: \d+(\.\d+)? m?s to \d+(\.\d+)? m?s \(/),
      );
      await frame.locator('.timeline-tab .xf-chip', { hasText: /^Time: / }).waitFor({ timeout: 15_000 });
      console.log(`[a11y] Timeline after Shift+→ ×4: "${selected}"`);
      await press(page, 'Escape');
      await eventually(
        () =>
          frame
            .locator('.tl-said')
            .textContent()
            .then((t) => t ?? ''),
        (t) => assert.match(t, /^No range selected/),
      );
      assert.equal(await frame.locator('.timeline-tab .xf-chip', { hasText: /^Time: / }).count(), 0, 'the range chip is gone');
      const mice = { page: await mouseEventsOf(page.mainFrame()), webview: await mouseEventsOf(frame) };
      console.log(`[a11y] mouse events during the walk: ${JSON.stringify(mice)}`);
      assert.deepEqual(mice, { page: 0, webview: 0 }, 'the walk used no mouse');

      // The shortcuts overlay.
      await press(page, '?');
      await frame.locator('dialog.help-overlay[open]').waitFor({ timeout: 5_000 });
      shots.push(await vs.screenshot('a11y-help-overlay'));
      const figures: AxeFigure[] = [];
      const check = (f: AxeFigure) => {
        figures.push(f);
        console.log(
          `[a11y] axe ${f.view} (${f.theme}): ${f.passes} rules passed, ${f.violations.length} violations${f.violations.length ? `: ${f.violations.join('; ')}` : ''}`,
        );
      };
      check(await axeCheck(frame, axeSource, 'help overlay', DARK));
      await press(page, 'Escape');
      await frame.locator('dialog.help-overlay').waitFor({ state: 'detached', timeout: 5_000 });

      // ---- axe in every view, dark then high contrast ----
      const tab = (id: string) => frame.locator(`vscode-tab-header[data-tab="${id}"]`).dispatchEvent('click');
      const tree = (k: 'top' | 'bottom') =>
        frame.evaluate((v) => {
          const sel = document.querySelector('vscode-single-select.tree-select') as HTMLElement & { value: string };
          sel.value = v;
          sel.dispatchEvent(new Event('change'));
        }, k);
      const views = async (theme: string) => {
        await tab('flame');
        await tree('top');
        check(await axeCheck(frame, axeSource, 'flame graph', theme));
        await tree('bottom');
        await frame.locator('[data-tree="bottom"] g.frame').first().waitFor({ state: 'attached', timeout: 15_000 });
        check(await axeCheck(frame, axeSource, 'inverted', theme));
        await tree('top');
        // The sandwich of the selected frame (S), closed again with its button.
        await frame.locator('[data-tree="top"]').focus();
        await press(page, 'ArrowUp', 2);
        await press(page, 's');
        await frame.locator('.sandwich [data-sandwich="callers"] g.frame').first().waitFor({ state: 'attached', timeout: 15_000 });
        check(await axeCheck(frame, axeSource, 'sandwich', theme));
        await frame.locator('.sandwich .sw-close').dispatchEvent('click');
        await tab('tables');
        await frame.locator('.table:not([hidden]) .rows .row').first().waitFor({ timeout: 10_000 });
        check(await axeCheck(frame, axeSource, 'tables', theme));
        await tab('summary');
        check(await axeCheck(frame, axeSource, 'summary', theme));
        await tab('timeline');
        check(await axeCheck(frame, axeSource, 'Timeline', theme));
      };
      for (const [theme, cls] of THEMES) {
        if (theme !== DARK) await setTheme(vs, theme);
        await frame.waitForFunction((c) => document.body.classList.contains(c), cls, { timeout: 30_000 });
        await views(theme);
        if (theme === HC) shots.push(await vs.screenshot('a11y-high-contrast'));
      }
      await setTheme(vs, HC);
      await frame.waitForFunction(() => document.body.classList.contains('vscode-high-contrast'), undefined, { timeout: 30_000 });

      // The comparison, from the Timeline: a range against the rest.
      await frame.locator('.tl-chart-box').focus();
      await press(page, 'Shift+ArrowLeft', 3);
      await eventually(
        () => frame.locator('.tl-compare').isEnabled(),
        (e) => assert.ok(e, 'compare enabled'),
      );
      await frame.locator('.tl-compare').dispatchEvent('click');
      const diff = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 90_000);
      check(await axeCheck(diff, axeSource, 'comparison', HC));
      await setTheme(vs, DARK);
      await diff.waitForFunction(() => !document.body.classList.contains('vscode-high-contrast'), undefined, { timeout: 30_000 });
      check(await axeCheck(diff, axeSource, 'comparison', DARK));
      // The comparison's shortcuts too.
      await diff.locator('[data-tree="diff"]').focus();
      await press(page, '?');
      await diff.locator('dialog.help-overlay[open]').waitFor({ timeout: 5_000 });
      check(await axeCheck(diff, axeSource, 'comparison help', DARK));
      await press(page, 'Escape');
      // The comparison's Accessible View: the biggest changes with both shares.
      await diff.locator('dialog.help-overlay').waitFor({ state: 'detached', timeout: 5_000 });
      await press(page, 'Alt+F2');
      const diffLines = await editorLines(page, /→.*\(accessible view\)/, 1);
      const biggest = diffLines.findIndex((l) => l.startsWith('Biggest changes'));
      console.log(`[a11y] comparison's Accessible View: ${diffLines.slice(0, 3).join(' / ')}; ${diffLines[biggest + 1]}`);
      assert.match(diffLines[biggest + 1] ?? '', /^1\. .+: \d+\.\d % → \d+\.\d % \([+−]\d+\.\d points\)$/, diffLines.join('\n'));

      const bad = figures.flatMap((f) =>
        f.violations.filter((v) => /^(serious|critical)/.test(v)).map((v) => `${f.view} (${f.theme}): ${v}`),
      );
      assert.deepEqual(bad, [], 'no serious or critical axe violation');
      failed = false;
    } finally {
      // Kept past the run's folder (removed when the test passes): the focused frame, the overlay, the text.
      const keep = join(artifactsRoot, 'accessibility-screenshots');
      mkdirSync(keep, { recursive: true });
      for (const f of shots) copyFileSync(f, join(keep, basename(f)));
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);

test(
  'the offline HTML page: Alt+F2 shows the Accessible View in a dialog, ? the shortcuts; axe finds nothing serious',
  { timeout: 180_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nf-e2e-a11y-html-'));
    let browser: Browser | undefined;
    try {
      const html = join(dir, 'prof.html');
      exportWithCli(recordProfLog(dir), 'html', html);
      browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.goto(`file://${html}`);
      await page.locator('[data-tree="top"] g.frame').first().waitFor({ state: 'attached', timeout: 30_000 });
      await page.locator('[data-tree="top"]').focus();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Alt+F2');
      const area = page.locator('dialog.text-dialog[open] textarea.a11y-text');
      await area.waitFor({ timeout: 15_000 });
      const text = await area.inputValue();
      const lines = text.split('\n');
      console.log(`[a11y] offline Accessible View: ${lines.length} lines; ${lines[0]}`);
      assert.match(lines[0], /^Node Flame, accessible view of /);
      assert.ok(
        lines.some((l) => /: total \d+\.\d %, self \d+\.\d %$/.test(l)),
        'the tree with shares',
      );
      assert.equal(await area.getAttribute('readonly'), '', 'read-only');
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'a11y-text', 'the text has the focus, selected to copy');
      const figures = [
        await axeCheck(
          page.mainFrame(),
          readFileSync(join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8'),
          'offline text dialog',
          'page',
        ),
      ];
      await page.keyboard.press('Escape');
      await area.waitFor({ state: 'detached', timeout: 5_000 });
      await page.keyboard.press('?');
      await page.locator('dialog.help-overlay[open]').waitFor({ timeout: 5_000 });
      await page.keyboard.press('Escape');
      figures.push(
        await axeCheck(
          page.mainFrame(),
          readFileSync(join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8'),
          'offline flame graph',
          'page',
        ),
      );
      for (const f of figures)
        console.log(`[a11y] axe ${f.view}: ${f.passes} rules passed, ${f.violations.length} violations ${f.violations.join('; ')}`);
      assert.deepEqual(
        figures.flatMap((f) => f.violations.filter((v) => /^(serious|critical)/.test(v))),
        [],
      );
    } finally {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
