// The HTML export as people open it: a file:// page in Chromium, with no network, from a real --prof log, from
// a folded file with hostile names, and from a real --cpu-prof run that is idle, then hot in one function, then
// in another (its Timeline). (The files themselves are checked in test/integration/export-formats.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadProfile } from '../../src/core/importers';
import type { Profile } from '../../src/core/model';
import { CHROMIUM_ARGS, chromiumPath, repoRoot } from './helpers/paths';
import { until } from './helpers/poll';
import { dragOnGraph } from './helpers/timeline';
import { exportWithCli, HOSTILE, recordProfLog, topShares, writeHostileFolded } from '../helpers/exportFixture';

/** From a function's first sample to its last (ms on the profile's timeline). */
function stretch(p: Profile, name: string): { from: number; to: number } {
  const tl = p.timeline!;
  const at = [...tl.times].filter((_, i) => p.frames[p.tree.frame[tl.nodes[i]]]?.name === name);
  return { from: Math.min(...at), to: Math.max(...at) };
}

/** The values of the drawn top-down flame graph's root and of two functions. */
function drawn(page: Page) {
  return page.evaluate(() => {
    type Node = Element & { __data__?: { parent: unknown; data: { name: string; value: number } } };
    const gs = [...document.querySelectorAll('[data-tree="top"] g.frame')] as Node[];
    const value = (name: string) => Math.max(0, ...gs.filter((g) => g.__data__?.data.name === name).map((g) => g.__data__!.data.value));
    return {
      root: gs.find((g) => g.__data__ && !g.__data__.parent)?.__data__?.data.value ?? 0,
      first: value('firstHot'),
      second: value('secondHot'),
    };
  });
}

const tab = (page: Page, id: string) => page.locator(`vscode-tab-header[data-tab="${id}"]`).click();

/** The function names the bottom-up table lists (its first screen). */
async function bottomUpRows(page: Page): Promise<string[]> {
  await tab(page, 'tables');
  await page.evaluate(() => {
    const sel = document.querySelector('.tables-tab vscode-single-select') as HTMLElement & { value: string };
    if (sel.value === 'bottom') return;
    sel.value = 'bottom';
    sel.dispatchEvent(new Event('change'));
  });
  return page.locator('.tables-tab .table:not([hidden]) .rows .cell.name').allInnerTexts();
}

test(
  'html export runs offline in Chromium: the hottest function drawn, bottom-up computed in the page, hostile names shown as text, the Timeline and its range',
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
      execFileSync(process.execPath, [
        '--cpu-prof',
        '--cpu-prof-interval',
        '1000',
        '--cpu-prof-dir',
        dir,
        '--cpu-prof-name',
        'phases.cpuprofile',
        join(repoRoot, 'test/fixtures/timeline/phases.js'),
        '600',
        '700',
      ]);
      const phases = await loadProfile(join(dir, 'phases.cpuprofile'));
      const second = stretch(phases, 'secondHot');
      const page3 = join(dir, 'phases.html');
      exportWithCli(join(dir, 'phases.cpuprofile'), 'html', page3);

      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: CHROMIUM_ARGS,
      });
      for (const file of [page1, page2, page3]) {
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
        } else if (file === page3) {
          const whole = await drawn(page);
          assert.ok(whole.first > 0 && whole.second > 0, 'both hot functions in the whole profile');
          await until(
            'the bottom-up table lists both hot functions',
            () => bottomUpRows(page),
            (r) => ['firstHot', 'secondHot'].every((f) => r.some((n) => n.includes(f))),
          );
          // The Timeline, computed in the page from the embedded samples: the activity graph is painted.
          await tab(page, 'timeline');
          const tl = page.locator('.timeline-tab');
          await until(
            'the time-ordered chart is drawn',
            () => tl.getAttribute('data-boxes'),
            (b) => Number(b) > 0,
          );
          const painted = await page.locator('.tl-graph').evaluate((c: HTMLCanvasElement) => {
            const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 3; i < px.length; i += 4) if (px[i]) n++;
            return n / (c.width * c.height);
          });
          assert.ok(painted > 0.05, `the activity graph is drawn (${(painted * 100).toFixed(1)} % of its pixels)`);
          const spanEnd = Number((await tl.getAttribute('data-window'))!.split('-')[1]);
          console.log(
            `[e2e] html Timeline of phases.cpuprofile: span ${spanEnd} ms, ${await tl.getAttribute('data-boxes')} boxes, page ${await tl.getAttribute('data-host-ms')} ms + draw ${await tl.getAttribute('data-draw-ms')} ms, graph ${(painted * 100).toFixed(0)} % painted; secondHot ${second.from.toFixed(0)}–${second.to.toFixed(0)} ms`,
          );
          // A drag over the second hot stretch: the flame graph and the tables keep only that function.
          await dragOnGraph(page, (await page.locator('.tl-graph').boundingBox())!, spanEnd, second.from + 20, second.to + 20);
          await until(
            'the range chip',
            () => page.locator('.timeline-tab .xf-chip').allInnerTexts(),
            (c) => c.length === 1 && /^Time: /.test(c[0]),
          );
          await tab(page, 'flame');
          const ranged = await until(
            'only secondHot in the flame graph',
            () => drawn(page),
            (d) => d.first === 0 && d.second > 0.9 * d.root,
          );
          console.log(
            `[e2e] html range ${await tl.getAttribute('data-range')}: secondHot ${((100 * ranged.second) / ranged.root).toFixed(1)} % of ${ranged.root} samples (whole: ${whole.root}), firstHot absent, flame graph ${await page.locator('body').getAttribute('data-range-ms')} ms after the drag`,
          );
          await until(
            'the bottom-up table lists secondHot, not firstHot',
            () => bottomUpRows(page),
            (r) => r.some((n) => n.includes('secondHot')) && !r.some((n) => n.includes('firstHot')),
          );
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
          // Folded stacks carry no times: the Timeline says so, as in the editor.
          await tab(page, 'timeline');
          await until(
            'the no-time note',
            () => page.locator('.timeline-tab').getAttribute('data-no-time'),
            (v) => v === 'folded',
          );
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
