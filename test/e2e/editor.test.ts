// Editor integration in a real VS Code: CodeLens, line heat, hover, stale files, Clear Hot Spots, the run
// history, and profile files opened from the explorer (custom editor), on a real --prof run of the guide's app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, startVSCode, repoRoot, type VSCode } from './helpers';
import { profileExpressApp } from '../helpers/expressApp';

const RUN = '20250101-120000-prof';
// Editor lines render spaces as no-break spaces, which \s matches.
const HASH_LINE = /encryptHash\s*=\s*crypto\.pbkdf2Sync/;
const LENS = /🔥 (\d+\.\d)% total · (\d+\.\d)% self · ([\d,]+) samples/;

/** Top offset (px) of the editor line whose text contains `text`. */
async function lineTop(page: Page, text: string | RegExp): Promise<number> {
  const line = page.locator('.part.editor .editor-group-container.active .view-lines .view-line').filter({ hasText: text }).first();
  await line.waitFor({ timeout: 10_000 });
  return line.evaluate((el) => parseFloat((el as HTMLElement).style.top));
}

async function lenses(page: Page): Promise<Array<{ text: string; top: number }>> {
  return page.$$eval('.part.editor .editor-group-container.active .codelens-decoration', (els) =>
    els.map((el) => ({ text: (el as HTMLElement).innerText.replace(/\u00a0/g, ' '), top: parseFloat((el as HTMLElement).style.top) })),
  );
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Screen y of the gutter heat marks (our decorations draw an SVG bar). */
async function gutterMarks(page: Page): Promise<number[]> {
  return page.$$eval('.part.editor .editor-group-container.active .margin .cgmr', (els) =>
    els.filter((el) => getComputedStyle(el).backgroundImage.includes('data:image/svg+xml')).map((el) => el.getBoundingClientRect().top),
  );
}

async function clickExplorerItem(vs: VSCode, name: string): Promise<void> {
  const row = vs.page.locator('.explorer-folders-view .monaco-list-row').filter({ hasText: name }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

test(
  'editor: CodeLens over the /auth handler reveals it in the flame graph; heat on pbkdf2Sync; hover; stale; history; profile files from the explorer',
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-editor-'));
    copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
    const raw = await profileExpressApp({ cwd: ws, profiler: 'prof', load: { seconds: 3, connections: 4 } });
    const logName = raw.split('/').pop()!;
    // As the launcher leaves it: a run folder with the raw log and run.json.
    const runDir = join(ws, '.nodeflame', RUN);
    mkdirSync(runDir, { recursive: true });
    const runLog = join(runDir, logName);
    copyFileSync(raw, runLog);
    writeFileSync(
      join(runDir, 'run.json'),
      JSON.stringify({
        version: 1,
        mode: 'prof',
        command: ['node', '--prof', 'app.js'],
        durationMs: 4200,
        exitCode: 0,
        profiles: [logName],
      }),
    );
    // The explorer copy (same name as V8 gave it) is put back only for the explorer part: while it sits beside the
    // app, VS Code's file dialog may take it for the typed run-folder path of the same name.
    const explorerCopy = join(ws, logName);
    const aside = join(tmpdir(), `${process.pid}-${logName}`);
    renameSync(raw, aside);
    writeFileSync(join(ws, 'stacks.folded'), 'main;handleRequest;hashPassword 60\nmain;handleRequest;render 30\nmain;idle 10\n');
    writeFileSync(join(ws, 'broken.folded'), 'this is not a profile\n');
    const appLines = readFileSync(join(ws, 'app.js'), 'utf8').split('\n');
    const authLine = appLines.findIndex((l) => l.includes("app.get('/auth'")) + 1;

    const vs = await startVSCode({
      workspace: ws,
      name: 'editor',
      viewport: { width: 1500, height: 950 },
      vsix: process.env.NODE_FLAME_VSIX || undefined,
    });
    let failed = true;
    try {
      const page = vs.page;
      // Open Profile… with the file dialog (VS Code's own dialog in the browser: type the path, Enter).
      await waitFor(
        'the Open Profile dialog',
        async () => {
          await vs.runCommand('Node Flame: Open Profile…', 60_000);
          await vs.quickPickWait(15_000);
          return true;
        },
        120_000,
      );
      await vs.fileDialogAnswer(runLog);
      const graph = await vs.webviewFrame(`body[data-profile="${logName}"] svg g.frame`, 120_000);
      await eventually(
        () => graph.locator('[data-tree="top"] g.frame').count(),
        (n) => assert.ok(n > 10, `the flame graph is drawn (${n} frames)`),
      );
      await waitFor('the status bar to name the active profile', async () => (await vs.statusBarTexts()).some((t) => t.includes(logName)));

      // CodeLens over the /auth handler.
      await vs.openFile('app.js');
      let seen: unknown;
      const lens = await waitFor('a CodeLens over the /auth handler', async () => {
        // Lines move down as lenses arrive: measure both in one go.
        const ls = await lenses(page);
        const handlerTop = await lineTop(page, "app.get('/auth'");
        seen = { handlerTop, ls };
        return ls.find((l) => LENS.test(l.text) && l.top < handlerTop && handlerTop - l.top < 40);
      }).catch((e) => {
        throw new Error(`${(e as Error).message}; lenses: ${JSON.stringify(seen)}`);
      });
      const [, total, self, samples] = LENS.exec(lens.text)!;
      console.log(`[e2e] CodeLens over /auth (line ${authLine}): ${lens.text}`);
      assert.ok(Number(total) >= 30, `the handler carries most of the load: ${lens.text}`);
      assert.ok(Number(self) <= Number(total));
      assert.ok(Number(samples.replace(/,/g, '')) > 50);
      await vs.screenshot('codelens');

      // Line heat on the pbkdf2Sync line of the handler: gutter mark and the share at the line's end.
      const heatText = await waitFor('heat on the pbkdf2Sync line', async () => {
        // Decoration text is CSS ::after content, not DOM text.
        const line = page.locator('.part.editor .editor-group-container.active .view-line').filter({ hasText: HASH_LINE }).first();
        const after = await line.evaluate((el) =>
          [...el.querySelectorAll('span')]
            .map((s) => getComputedStyle(s, '::after').content)
            .filter((c) => c && c !== 'none')
            .join(' '),
        );
        const t = after.replace(/\u00a0/g, ' ');
        return /🔥 \d+\.\d% of samples on this line/.test(t) && t;
      });
      console.log(`[e2e] heat on the pbkdf2Sync line: ${heatText.trim()}`);
      const hashLine = page.locator('.part.editor .editor-group-container.active .view-line').filter({ hasText: HASH_LINE }).first();
      const hashY = (await hashLine.boundingBox())!.y;
      const marks = await gutterMarks(page);
      assert.ok(
        marks.some((y) => Math.abs(y - hashY) < 4),
        `a gutter heat mark on the pbkdf2Sync line (y ${hashY}); marks at ${marks}`,
      );

      // Hover: self/total, callers and callees.
      await page
        .locator('.part.editor .editor-group-container.active .view-line')
        .filter({ hasText: "app.get('/auth'" })
        .first()
        .locator('span span')
        .last()
        .hover();
      const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: 'Callees' }).first();
      await hover.waitFor({ timeout: 15_000 });
      const hoverText = await hover.innerText();
      assert.match(hoverText, /Callers/);
      assert.match(hoverText, /pbkdf2Sync/, `the handler's callees include pbkdf2Sync: ${hoverText}`);
      await vs.screenshot('codelens-hover');
      await page.keyboard.press('Escape');

      // Clicking the lens reveals and zooms the handler's frame in the flame graph.
      await page
        .locator('.part.editor .editor-group-container.active .codelens-decoration a')
        .filter({ hasText: lens.text })
        .first()
        .click();
      const crumbs = await waitFor('the flame graph zoomed to the handler', async () => {
        const frame = await vs.webviewFrame(`body[data-profile="${logName}"] .crumbs`, 10_000);
        const t = await frame.locator('.crumbs').innerText();
        return new RegExp(`app\\.js:${authLine}`).test(t) && { frame, t };
      });
      await eventually(
        () => crumbs.frame.locator('.details').innerText(),
        (details) => assert.match(details, new RegExp(`app\\.js:${authLine}`), `the handler is the selected frame: ${details}`),
      );
      await vs.screenshot('codelens-revealed');

      // Editing the file marks it stale instead of annotating moved lines; undo restores the lenses.
      await vs.openFile('app.js');
      await page.locator('.part.editor .editor-group-container.active .view-line').first().click();
      await page.keyboard.press('Home');
      await page.keyboard.press('Enter');
      await waitFor('the stale notice', async () => (await lenses(page)).some((l) => /hot spots hidden/.test(l.text)));
      await eventually(
        () => lenses(page),
        (ls) => assert.ok(!ls.some((l) => LENS.test(l.text)), 'no percentages on a changed file'),
      );
      await page.keyboard.press('Control+Z');
      await waitFor('the lenses back after undo', async () => (await lenses(page)).some((l) => LENS.test(l.text)));

      // Toggle heat off and on; Clear Hot Spots removes lenses and marks.
      await vs.runCommand('Node Flame: Toggle Line Heat');
      await waitFor('heat marks gone', async () => (await gutterMarks(page)).length === 0);
      await vs.runCommand('Node Flame: Toggle Line Heat');
      await waitFor('heat marks back', async () => (await gutterMarks(page)).length > 0);
      await vs.runCommand('Node Flame: Clear Hot Spots');
      await waitFor('lenses cleared', async () => (await lenses(page)).length === 0 && (await gutterMarks(page)).length === 0);

      // The history view lists the run; the summary got cached in run.json when the profile was opened.
      const run = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
      assert.ok(run.summary?.samples > 0 && run.summary.topFunction?.name, `run.json has a summary: ${JSON.stringify(run.summary)}`);
      assert.equal(run.mode, 'prof', 'the launcher’s keys are kept');
      await page.locator('.part.activitybar [aria-label^="Node Flame"]').first().click();
      const row = page.locator('.part.sidebar .monaco-list-row').filter({ hasText: 'prof' }).first();
      await row.waitFor({ timeout: 15_000 });
      const rowText = (await row.innerText()).replace(/\s+/g, ' ');
      console.log(`[e2e] history row: ${rowText}`);
      assert.match(rowText, /2025/);
      assert.match(rowText, /4\.2 s/);
      await vs.screenshot('history');

      // Profile files from the explorer open the flame graph in the custom editor.
      renameSync(aside, explorerCopy);
      await page.locator('.part.activitybar [aria-label^="Explorer"]').first().click();
      await clickExplorerItem(vs, logName);
      const logGraph = await vs.webviewFrame(`body[data-profile="${logName}"] svg g.frame`, 120_000);
      await eventually(
        () => logGraph.locator('[data-tree="top"] g.frame').count(),
        (n) => assert.ok(n > 10, `${n} frames`),
      );
      await eventually(
        () => vs.activeEditor(),
        (tab) => assert.match(tab?.path ?? '', new RegExp(logName.replace(/\./g, '\\.')), 'the log opened in an editor tab of its own'),
      );
      await clickExplorerItem(vs, 'stacks.folded');
      const folded = await vs.webviewFrame('body[data-profile="stacks.folded"] svg g.frame', 60_000);
      const names = await folded.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
      assert.ok(
        names.some((n) => n.startsWith('hashPassword')),
        `the folded stacks are drawn: ${names}`,
      );
      await vs.screenshot('profile-file-editor');
      // A file that is no profile: its tab says why, in words.
      await clickExplorerItem(vs, 'broken.folded');
      const broken = await vs.webviewFrame('main.cannot-open h1', 60_000);
      const said = (await broken.locator('body').innerText()).replace(/\s+/g, ' ');
      console.log(`[e2e] broken.folded: ${said}`);
      assert.match(said, /Node Flame cannot open this file .*not a profile Node Flame reads \(expected/);
      const conflicts = (await vs.notifications({ all: true })).filter((n) => /multiple default editors/i.test(n));
      assert.deepEqual(conflicts, [], 'VS Code never asks which default editor to use for a profile file');
      failed = false;
    } finally {
      if (failed) console.log(`[e2e] Node Flame log:\n${vs.nodeFlameLog().slice(-4000)}`);
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
      rmSync(aside, { force: true });
    }
  },
);
