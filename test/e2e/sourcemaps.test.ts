// A webpack bundle whose sources were deleted after the build (#25), in a real VS Code: the flame graph
// names the hot function as written, and Enter on it opens the read-only text from the map at its line,
// with the CodeLens over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode } from './helpers';
import { buildWebpack, cpuProfile, CRUNCH_LINE, writeProject } from '../helpers/bundles';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';
const LENS = /🔥 (\d+\.\d)% total/;

test('webpack bundle, sources deleted: crunchNumbers in the flame graph; its source opens from sourcesContent at hot.ts:6 with a CodeLens', { timeout: 600_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-smap-'));
  try {
    writeProject(ws);
    const js = await buildWebpack(ws);
    const prof = cpuProfile(js, join(ws, 'prof'));
    rmSync(join(ws, 'src'), { recursive: true });
    const vs = await startVSCode({ workspace: ws, name: 'sourcemaps', viewport: { width: 1400, height: 900 } });
    let failed = true;
    try {
      await vs.waitForCommand(SHOW);
      await vs.runCommand(SHOW);
      await vs.quickInputAnswer(prof);
      const frame = await vs.webviewFrame('body[data-first-paint-ms] svg g.frame', 90_000);
      const hot = frame.locator('[data-tree="top"] g.frame[name="crunchNumbers"]').first();
      await hot.waitFor({ state: 'attached', timeout: 30_000 }).catch(async (e: Error) => {
        const drawn = await frame.$$eval('g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
        assert.fail(`crunchNumbers is not drawn (${e.message.split('\n')[0]}); drawn: ${drawn.slice(0, 30).join(' | ')}`);
      });
      await hot.click();
      await frame.locator('.details').filter({ hasText: `hot.ts:${CRUNCH_LINE}` }).waitFor({ timeout: 15_000 });
      await frame.locator('[data-tree="top"]').focus();
      await vs.page.keyboard.press('Enter');
      let ed = await vs.activeEditor();
      for (let i = 0; i < 60 && !(/src\/hot\.ts/.test(ed?.path ?? '') && ed?.line === CRUNCH_LINE); i++) {
        await vs.page.waitForTimeout(250);
        ed = await vs.activeEditor();
      }
      assert.match(ed?.path ?? '', /src\/hot\.ts/, JSON.stringify(ed));
      assert.equal(ed?.line, CRUNCH_LINE);
      const lines = vs.page.locator('.part.editor .editor-group-container.active .view-lines .view-line');
      await lines.filter({ hasText: /export\sfunction\scrunchNumbers/ }).first().waitFor({ timeout: 15_000 });
      // CodeLens works in the read-only document too.
      let lens = '';
      for (let i = 0; i < 80 && !LENS.test(lens); i++) {
        lens = (await vs.page.$$eval('.part.editor .editor-group-container.active .codelens-decoration', (els) => els.map((el) => (el as HTMLElement).innerText).join('\n'))).replace(/\u00a0/g, ' ');
        if (!LENS.test(lens)) await vs.page.waitForTimeout(250);
      }
      assert.match(lens, LENS);
      await vs.screenshot('sourcemaps-sources-content');
      failed = false;
    } finally {
      await vs.close({ failed });
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
