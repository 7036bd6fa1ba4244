// An exported HTML page of a real two-process run (a parent hot in parentHot that forks a child hot in childHot),
// opened from file:// in Chromium: it answers with the editor's own answer (core/viewer/answer), so Drop on a
// function takes it off the page's Timeline too, and picking the child shows the child's event-loop and heap rows
// rather than the first process's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, repoRoot } from './helpers/paths';
import { until } from './helpers/poll';
import { runCli, runDirOf } from '../helpers/cli';

const tab = (page: Page, id: string) => page.locator(`vscode-tab-header[data-tab="${id}"]`).click();

/** The Timeline's figures: samples in its overview, its rows under the graph, its process lanes. */
async function timelineFacts(page: Page) {
  const tl = page.locator('.timeline-tab');
  return {
    samples: Number(await tl.getAttribute('data-samples')),
    tracks: (await tl.getAttribute('data-tracks')) ?? '',
    boxes: Number(await tl.getAttribute('data-boxes')),
  };
}

test('an exported run page: Drop changes its Timeline, picking the child shows the child’s rows', { timeout: 180_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'nf-html-run-'));
  let browser: Browser | undefined;
  try {
    const r = await runCli(
      ['profile', '--mode', 'cpu-prof', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', '600'],
      {
        cwd: join(repoRoot, 'test', 'fixtures', 'process-tree-timeline'),
        env: { PT_TIMES: join(work, 'times.jsonl') },
        killAfterMs: 90_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const file = join(work, 'run.html');
    const out = await runCli(['report', runDirOf(r), '--format', 'html', '-o', file], { cwd: work, killAfterMs: 60_000 });
    assert.equal(out.code, 0, out.stderr);

    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`file://${file}`);
    await page.locator('[data-tree="top"] g.frame[name="childHot"]').first().waitFor({ state: 'attached', timeout: 30_000 });

    await tab(page, 'timeline');
    const whole = await until(
      'the whole run on the Timeline',
      () => timelineFacts(page),
      (f) => f.samples > 0 && f.boxes > 0,
    );
    assert.equal(
      whole.tracks.split(', ').filter((t) => t.startsWith('loopDelay')).length,
      2,
      `both processes' delay rows: ${whole.tracks}`,
    );

    // Drop childHot from the flame graph's menu: the Timeline loses its samples.
    await tab(page, 'flame');
    const frames = page.locator('[data-tree="top"] g.frame[name="childHot"]');
    await frames.first().click({ button: 'right' });
    const menu = page.locator('.context-menu');
    await menu.waitFor({ timeout: 10_000 });
    await menu.locator('.menu-item', { hasText: /^Drop/ }).first().click();
    await tab(page, 'timeline');
    const dropped = await until(
      'the Timeline without childHot',
      () => timelineFacts(page),
      (f) => f.samples > 0 && f.samples < whole.samples,
    );
    console.log(`[e2e] html run page: Timeline ${whole.samples} samples, ${dropped.samples} after Drop childHot; rows ${whole.tracks}`);
    // Back to the whole profile (the transforms' first crumb): the whole run again.
    await page.locator('.xf-root:visible').first().click();
    await until(
      'the Timeline whole again',
      () => timelineFacts(page),
      (f) => f.samples === whole.samples,
    );

    // The child alone in the picker: its own delay and heap rows.
    await page.click('details.processes > summary');
    const childRow = page.locator('.proc-row', { hasText: 'child' }).first();
    const childPid = (await childRow.locator('.proc-pid').innerText()).trim();
    await childRow.locator('.proc-only').click();
    const picked = await until(
      "the child's rows",
      () => timelineFacts(page),
      // The three figures are read one after another while the page may redraw: all of them must hold in one read.
      (f) =>
        (f.tracks === `loopDelay ${childPid}, heapUsed ${childPid}` || f.tracks === `heapUsed ${childPid}, loopDelay ${childPid}`) &&
        f.samples < whole.samples,
    );
    assert.ok(picked.samples < whole.samples, `only the child’s samples: ${picked.samples} of ${whole.samples}`);
    console.log(`[e2e] html run page: child ${childPid} picked, rows ${picked.tracks}, ${picked.samples} samples`);
    assert.deepEqual(problems, [], 'no page errors');

    // A page exported with a range and a transform opens with them applied to the profile's samples (its timeline
    // inflates before anything is derived from it): the range chip, the Timeline drawn, no "no sample times" warning.
    const span = Number((await page.locator('.timeline-tab').getAttribute('data-window'))!.split('-')[1]);
    const viewed = join(work, 'viewed.html');
    const cut = await runCli(
      ['report', runDirOf(r), '--format', 'html', '--from', String(Math.round(span / 2)), '--drop', 'parentHot', '-o', viewed],
      { cwd: work, killAfterMs: 60_000 },
    );
    assert.equal(cut.code, 0, cut.stderr);
    const page2 = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const problems2: string[] = [];
    page2.on('pageerror', (e) => problems2.push(String(e)));
    await page2.goto(`file://${viewed}`);
    await page2.locator('[data-tree="top"] g.frame').first().waitFor({ state: 'attached', timeout: 30_000 });
    const chips = await until(
      'the range and drop chips',
      () => page2.locator('.flame-tab .xf-chip').allInnerTexts(),
      (c) => c.length === 2,
    );
    assert.match(chips[0], /^Time: /);
    const summary = await page2.locator('.summary').innerText();
    assert.ok(!/no sample times/.test(summary), `the range was applied: ${summary.slice(0, 300)}`);
    await tab(page2, 'timeline');
    const viewedFacts = await until(
      'the Timeline of the viewed page',
      () => timelineFacts(page2),
      (f) => f.samples > 0 && f.boxes > 0,
    );
    console.log(
      `[e2e] html page exported with --from ${Math.round(span / 2)} --drop parentHot: chips ${chips.join(' | ')}; Timeline ${viewedFacts.samples} samples`,
    );
    assert.deepEqual(problems2, [], 'no page errors');
  } finally {
    await browser?.close();
    rmSync(work, { recursive: true, force: true });
  }
});
