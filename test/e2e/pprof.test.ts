// A production-style profile in a real VS Code: @datadog/pprof's wall profile of a real program opens in the
// flame graph with the hot function at its file:line, and Enter on it opens that line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode } from './helpers';
import { datadogPprof, runHotProgram } from '../helpers/datadogPprof';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';

test('a pprof written by @datadog/pprof opens in the viewer with hotLoop at hot.js:5, and its source opens at that line', { timeout: 600_000 }, async (t) => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-pprof-'));
  try {
    const dd = await datadogPprof(ws);
    if ('skip' in dd) return t.skip(dd.skip);
    const { hotLine, wall } = runHotProgram(dd.dir, ws);
    const vs = await startVSCode({ workspace: ws, name: 'pprof', viewport: { width: 1400, height: 900 } });
    let failed = true;
    try {
      await vs.waitForCommand(SHOW);
      await vs.runCommand(SHOW);
      await vs.quickInputAnswer(wall);
      const frame = await vs.webviewFrame('body[data-profile="wall.pb.gz"][data-first-paint-ms] svg g.frame', 90_000);
      const hot = 'hotLoop';
      const hotFrame = frame.locator(`[data-tree="top"] g.frame[name="${hot}"]`).first();
      await hotFrame.waitFor({ state: 'attached', timeout: 30_000 }).catch(async (e: Error) => {
        const drawn = await frame.$$eval('g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
        assert.fail(`${hot} is not drawn (${e.message.split('\n')[0]}); drawn: ${drawn.slice(0, 30).join(' | ')}`);
      });
      await vs.screenshot('pprof-flame-graph');

      // A click zooms to it; the details beside the graph say where it lives.
      await hotFrame.click();
      await frame.locator('.details').filter({ hasText: `hot.js:${hotLine}` }).waitFor({ timeout: 15_000 });
      await frame.locator('[data-tree="top"]').focus();
      await vs.page.keyboard.press('Enter');
      let ed = await vs.activeEditor();
      for (let i = 0; i < 40 && !(ed?.file === 'hot.js' && ed.line === hotLine); i++) {
        await vs.page.waitForTimeout(250);
        ed = await vs.activeEditor();
      }
      assert.equal(ed?.file, 'hot.js');
      assert.equal(ed?.line, hotLine);
      failed = false;
    } finally {
      await vs.close({ failed });
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
