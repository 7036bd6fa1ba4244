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

test(
  'a pprof written by @datadog/pprof opens in the viewer with hotLoop at hot.js:5, and its source opens at that line',
  { timeout: 600_000 },
  async (t) => {
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
        await frame
          .locator('.details')
          .filter({ hasText: `hot.js:${hotLine}` })
          .waitFor({ timeout: 15_000 });
        await frame.locator('[data-tree="top"]').focus();
        await vs.page.keyboard.press('Enter');
        let ed = await vs.activeEditor();
        for (let i = 0; i < 40 && !(ed?.file === 'hot.js' && ed.line === hotLine); i++) {
          await vs.page.waitForTimeout(250);
          ed = await vs.activeEditor();
        }
        assert.equal(ed?.file, 'hot.js');
        assert.equal(ed?.line, hotLine);

        // The sample-type picker: wall (the last type) is shown; picking "sample" reads the file again by counts.
        const webview = await vs.webviewFrame('body[data-profile="wall.pb.gz"] vscode-single-select.sample-type', 30_000);
        const picker = webview.locator('vscode-single-select.sample-type');
        assert.equal(await picker.evaluate((el) => (el as unknown as { value: string }).value), 'wall');
        const total = () => webview.locator('[data-tree="top"] g.frame[name="hotLoop"]').first();
        await total().click();
        const wallText = await webview.locator('.details').innerText();
        await picker.evaluate((el) => {
          // Marks this page, so the one the host loads afresh is told apart from it.
          document.body.dataset.old = '1';
          const select = el as unknown as { value: string; dispatchEvent(e: Event): boolean };
          select.value = 'sample';
          select.dispatchEvent(new Event('change'));
        });
        const again = await vs.webviewFrame(
          'body[data-profile="wall.pb.gz"][data-first-paint-ms]:not([data-old]) vscode-single-select.sample-type',
          60_000,
        );
        let value = '';
        for (let i = 0; i < 60 && value !== 'sample'; i++) {
          value = await again
            .locator('vscode-single-select.sample-type')
            .evaluate((el) => (el as unknown as { value: string }).value)
            .catch(() => '');
          if (value !== 'sample') await vs.page.waitForTimeout(250);
        }
        assert.equal(value, 'sample', 'the page came back showing sample counts');
        await again.locator('[data-tree="top"] g.frame[name="hotLoop"]').first().click();
        const countText = await again.locator('.details').innerText();
        // "Self 98.2% · 1,035 samples" by counts; by wall time in its unit ("· 1.17 s", "· 850 ms"), read as ms.
        const n = (t: string) => {
          const m = /·\s*([\d,.]+)\s*(samples|ms|s)?/.exec(t);
          return Number(m?.[1]?.replace(/,/g, '') ?? NaN) * (m?.[2] === 's' ? 1000 : 1);
        };
        console.log(`[e2e] hotLoop details, wall: ${wallText.replace(/\n/g, ' ')} | sample: ${countText.replace(/\n/g, ' ')}`);
        assert.ok(n(countText) > 0 && n(countText) < n(wallText), `counts (${n(countText)}) are fewer than wall ms (${n(wallText)})`);
        failed = false;
      } finally {
        await vs.close({ failed });
      }
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
