// The HTML export as people open it: a file:// page in Chromium, with no network, from a real --prof log and
// from a folded file with hostile names. (The files themselves are checked in test/integration/export-formats.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { loadProfile } from '../../src/core/importers';
import { CHROMIUM_ARGS, chromiumPath } from './helpers/paths';
import { exportWithCli, HOSTILE, recordProfLog, topShares, writeHostileFolded } from '../helpers/exportFixture';

test(
  'html export runs offline in Chromium: the hottest function drawn, bottom-up computed in the page, hostile names shown as text',
  { timeout: 180_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nf-export-e2e-'));
    let browser: Browser | undefined;
    try {
      const log = recordProfLog(dir);
      const hottest = [...topShares(await loadProfile(log), 1).keys()][0];
      const page1 = join(dir, 'prof.html');
      exportWithCli(log, 'html', page1);
      const folded = join(dir, 'hostile.folded');
      writeHostileFolded(folded);
      const page2 = join(dir, 'hostile.html');
      exportWithCli(folded, 'html', page2);

      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: CHROMIUM_ARGS,
      });
      for (const file of [page1, page2]) {
        const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
        const url = `file://${file}`;
        const attempted: string[] = [];
        const dialogs: string[] = [];
        const problems: string[] = [];
        page.on('dialog', (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
        page.on('pageerror', (e) => problems.push(String(e)));
        page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
        await page.route('**', (r) => {
          if (r.request().url() === url) return r.continue();
          attempted.push(r.request().url());
          return r.abort();
        });
        await page.goto(url);
        const frames = page.locator('[data-tree="top"] g.frame');
        await frames.first().waitFor({ state: 'attached', timeout: 30_000 });
        assert.ok((await frames.count()) >= 4, 'the flame graph has frames');
        if (file === page1) {
          const names = await frames.evaluateAll((gs) => gs.map((g) => g.getAttribute('name')));
          assert.ok(names.includes(hottest), `the hottest function is drawn (${hottest})`);
          // The bottom-up tree is computed in the page from the embedded profile.
          await page.evaluate(() => {
            const sel = document.querySelector('vscode-single-select.tree-select') as HTMLElement & { value: string };
            sel.value = 'bottom';
            sel.dispatchEvent(new Event('change'));
          });
          await page.locator('[data-tree="bottom"] g.frame').first().waitFor({ state: 'attached', timeout: 10_000 });
        } else {
          for (const name of HOSTILE) {
            const g = page
              .locator('[data-tree="top"] g.frame')
              .filter({ has: page.locator(`xpath=self::*[@name=${JSON.stringify(name)}]`) });
            assert.equal(await g.count(), 1, `${name} is drawn`);
            await g.click();
            await page.locator('.details .title', { hasText: name }).waitFor({ timeout: 5_000 });
            assert.equal(await page.locator('.details .title').innerText(), name, 'shown as text');
            // No editor to open: the details say where the code would be.
            await page.locator('.details .no-source').waitFor({ timeout: 5_000 });
            await page.click('vscode-button[icon="home"]');
          }
          assert.equal(await page.locator('img').count(), 0, 'no element was made from a name');
          assert.equal(await page.locator('body script').count(), 2, 'no script element was made from a name');
        }
        await page.waitForTimeout(300);
        assert.deepEqual(attempted, [], 'no request besides the page itself');
        assert.deepEqual(dialogs, [], 'no script from the profile ran');
        assert.deepEqual(problems, [], 'no errors or CSP violations');
        await page.close();
      }
    } finally {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
