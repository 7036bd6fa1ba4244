// "Compare Profiles…" in a real VS Code: the guide's app before (pbkdf2Sync) and after (async pbkdf2),
// each profiled under the same load, then the differential flame graph and its table of changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startVSCode } from './helpers';
import { expressExample as example, profileExpressApp } from '../helpers/expressApp';

/** --cpu-prof with the guide's load (a user, then 40 /auth requests) into a run folder of `ws`. */
const profileApp = (ws: string, run: string) =>
  profileExpressApp({ cwd: ws, profiler: 'cpu-prof', out: join(ws, '.nodeflame', run), load: { requests: 40, connections: 8 } });

const COMPARE = 'Node Flame: Compare Profiles…';

test(
  'Compare Profiles…: the guide app before and after the fix; pbkdf2Sync heads the changes, shrinking',
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-compare-'));
    // The same file edited in place, as a user fixes it.
    copyFileSync(join(example, 'app.js'), join(ws, 'app.js'));
    await profileApp(ws, '20250101-100000-cpu-prof');
    copyFileSync(join(example, 'app-async.js'), join(ws, 'app.js'));
    await profileApp(ws, '20250101-110000-cpu-prof');
    const vs = await startVSCode({ workspace: ws, name: 'compare', viewport: { width: 1400, height: 900 } });
    let failed = true;
    try {
      await vs.waitForCommand(COMPARE);
      await vs.runCommand(COMPARE);
      await eventually(
        () => vs.quickPickTitle(),
        (t) => assert.match(t, /BEFORE/),
      );
      await vs.quickPickSelect('20250101-100000-cpu-prof');
      await eventually(
        () => vs.quickPickTitle(),
        (t) => assert.match(t, /AFTER/),
      );
      await vs.quickPickSelect('20250101-110000-cpu-prof');

      const frame = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 90_000);
      const first = frame.locator('.changes-table tbody tr').first();
      const cells = await first.locator('td').allInnerTexts();
      console.log(`[e2e] first change: ${cells.join(' | ')}`);
      assert.equal(cells[0].trim(), 'pbkdf2Sync');
      const delta = Number(/([\d.]+)%/.exec(cells[4])![1]);
      assert.ok(cells[4].startsWith('−') && delta > 30, `pbkdf2Sync shrinks by a lot: ${cells[4]}`);
      // Not gone: the fixed app's /newUser still hashes once with pbkdf2Sync (~50 ms), which a fresh-clone e2e run
      // (session 15) measured at 6.07 % of the short after-profile (79.0 % before).
      assert.ok(Number(/([\d.]+)%/.exec(cells[3])![1]) < 10, `and is about gone after: ${cells[3]}`);

      // Sized by the before profile, the old tower is drawn, blue.
      await frame.evaluate(() => {
        const sel = document.querySelector('vscode-single-select.size-by') as HTMLElement & { value: string };
        sel.value = 'before';
        sel.dispatchEvent(new Event('change'));
      });
      // /newUser also calls pbkdf2Sync (once, in both versions): the tower that went away is the widest one.
      // The graph redraws sized by the before profile once the host answers: wait for the old tower, which spans
      // most of the width (the frames drawn before the switch are sized by the after profile).
      await frame.waitForFunction(
        () => {
          const svg = document.querySelector('[data-tree="diff"] svg');
          const full = svg?.getBoundingClientRect().width ?? 0;
          return [...document.querySelectorAll('[data-tree="diff"] g.frame[name="pbkdf2Sync"] rect')].some(
            (r) => full > 0 && r.getBoundingClientRect().width > 0.45 * full,
          );
        },
        undefined,
        { timeout: 15_000 },
      );
      const widest = await frame.evaluate(() => {
        let best = { w: -1, i: 0 };
        document.querySelectorAll('[data-tree="diff"] g.frame[name="pbkdf2Sync"]').forEach((g, i) => {
          const w = g.querySelector('rect')?.getBoundingClientRect().width ?? 0;
          if (w > best.w) best = { w, i };
        });
        return best.i;
      });
      const old = frame.locator('[data-tree="diff"] g.frame[name="pbkdf2Sync"]').nth(widest);
      const fill = await old.locator('rect').getAttribute('fill');
      const [r, , b] = /(\d+),\s*(\d+),\s*(\d+)/
        .exec(fill ?? '')!
        .slice(1)
        .map(Number);
      assert.ok(b > r, `the shrunk tower is blue: ${fill}`);
      await old.hover();
      await eventually(
        () => frame.locator('.tooltip').innerText(),
        (tip) => assert.match(tip, /Before[\s\S]*After[\s\S]*Change[\s\S]*−/, tip),
      );

      await vs.page.mouse.move(0, 0);
      // One legend, one hint, and the table right under the graph: what lies between the lowest frame drawn
      // and the table's title is only the legend and the details strip.
      const layout = await eventually(
        () =>
          frame.evaluate(() => {
            const text = document.body.innerText;
            const hint = 'Width: share of all samples';
            const rects = [...document.querySelectorAll('[data-tree="diff"] g.frame rect')]
              .map((r) => r.getBoundingClientRect())
              .filter((r) => r.width > 0);
            const chart = document.querySelector('[data-tree="diff"]')!.getBoundingClientRect();
            const lowest = Math.min(chart.bottom, Math.max(...rects.map((r) => r.bottom)));
            const between = [...document.querySelectorAll('.diff-view > .legend, .diff-view > .details')].map(
              (e) => e.getBoundingClientRect().height,
            );
            return {
              hints: text.split(hint).length - 1,
              legends: [...document.querySelectorAll('.legend')].filter((e) => (e as HTMLElement).offsetParent).length,
              gap: Math.round(document.querySelector('.changes-title')!.getBoundingClientRect().top - lowest),
              between: Math.round(between.reduce((a, b) => a + b, 0)),
              chart: [Math.round(chart.top), Math.round(chart.bottom)],
              lowest: Math.round(lowest),
            };
          }),
        (l) => {
          assert.equal(l.hints, 1, `the hint is printed once: ${JSON.stringify(l)}`);
          assert.equal(l.legends, 1, `one legend: ${JSON.stringify(l)}`);
          assert.ok(l.gap <= l.between + 24, `no empty band between graph and table: ${JSON.stringify(l)}`);
        },
      );
      console.log(`[e2e] compare layout: ${JSON.stringify(layout)}`);
      await vs.screenshot('compare');

      // A row of the table highlights the function in the graph and opens its source beside it.
      await first.click();
      await frame.locator('.changes-table tbody tr.selected').waitFor({ timeout: 5_000 });
      const handlerRow = frame.locator('.changes-table tbody tr', { hasText: 'app.js:' }).first();
      await handlerRow.click();
      await vs.page.locator('.part.editor .tab[data-resource-name="app.js"]').first().waitFor({ timeout: 15_000 });

      // After a reload the comparison reopens from its two files.
      await vs.reloadWindow();
      const again = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 120_000);
      const restored = await again.locator('.changes-table tbody tr').first().locator('td').allInnerTexts();
      console.log(`[e2e] after a reload, first change: ${restored.join(' | ')}`);
      assert.deepEqual(restored, cells, 'the restored comparison shows the same first change');

      const csp = vs.cspViolations();
      assert.deepEqual(csp, [], 'no CSP violations');
      failed = false;
    } finally {
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
