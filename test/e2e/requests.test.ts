// The Requests tab in a real VS Code: a launched cpu-prof run of the guide's Express app under a mix of /auth and
// /newUser; the tab lists both routes, ticking GET /auth leaves the flame graph with pbkdf2Sync as nearly all of it,
// and a slow request's row selects its span on the Timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { startVSCode, repoRoot } from './helpers';
import { profileServer } from '../helpers/requestsRun';
import { axeCheck } from './helpers/a11y';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';
const USER = '?username=matt&password=password';

/** The drawn top-down graph: its root's value and pbkdf2Sync's (the widest box of that name). */
function drawn(frame: Frame) {
  return frame.evaluate(() => {
    type Drawn = { name: string; value: number };
    const gs = [...document.querySelectorAll('[data-tree="top"] g.frame')] as (Element & { __data__?: { parent: unknown; data: Drawn } })[];
    const root = gs.find((g) => g.__data__ && !g.__data__.parent)?.__data__?.data;
    const pbkdf2 = Math.max(0, ...gs.filter((g) => g.__data__?.data.name === 'pbkdf2Sync').map((g) => g.__data__!.data.value));
    return { root: root?.value ?? 0, pbkdf2 };
  });
}

function tab(frame: Frame, id: string): Promise<void> {
  return frame.locator(`vscode-tab-header[data-tab="${id}"]`).dispatchEvent('click');
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, tries = 120): Promise<T> {
  let v = await get();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await get();
  }
  assert.ok(ok(v), `${what}: ${JSON.stringify(v).slice(0, 400)}`);
  return v;
}

test('the Requests tab lists the routes; ticking GET /auth filters the flame graph to it', { timeout: 600_000 }, async () => {
  const run = await profileServer({
    mode: 'cpu-prof',
    cwd: join(repoRoot, 'examples', 'express-auth'),
    app: 'app.js',
    setup: [`/newUser${USER}`],
    paths: [`/auth${USER}`, `/newUser${USER}`, `/newUser${USER}`],
    amount: 90,
  });
  const vs = await startVSCode({ workspace: join(run.runDir, '..'), name: 'requests', viewport: { width: 1400, height: 900 } });
  let failed = true;
  try {
    await vs.waitForCommand(SHOW);
    await vs.runCommand(SHOW);
    await vs.quickInputAnswer(run.runDir);
    let frame = await vs.webviewFrame(`body[data-profile="${run.runDir.split('/').pop()}"][data-first-paint-ms] svg g.frame`, 120_000);
    const whole = await drawn(frame);
    assert.ok(whole.pbkdf2 > 0 && whole.root > whole.pbkdf2, `the whole run: ${JSON.stringify(whole)}`);

    await tab(frame, 'requests');
    const routes = await until(
      'the routes listed',
      () => frame.$$eval('.rq-routes tr[data-route]', (rs) => rs.map((r) => (r as HTMLElement).dataset.route ?? '')),
      (r) => r.includes('GET /auth') && r.includes('GET /newUser'),
    );
    assert.ok(routes.includes('(no request)'), routes.join(', '));
    // The tab as a screen reader meets it (#36): axe-core in the webview's page, no serious or critical violation.
    const axe = await axeCheck(frame, readFileSync(join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8'), 'Requests', 'default');
    console.log(`[a11y] axe Requests: ${axe.passes} rules passed, ${axe.violations.length} violations ${axe.violations.join('; ')}`);
    const bad = axe.violations.filter((v) => /^(serious|critical) /.test(v));
    assert.deepEqual(bad, [], 'serious or critical axe violations in the Requests tab');
    await frame.locator('tr[data-route="GET /auth"] input[type=checkbox]').check();
    await until(
      'GET /auth picked',
      () => frame.locator('tr[data-route="GET /auth"]').getAttribute('class'),
      (c) => c === 'rq-picked',
    );

    await tab(frame, 'flame');
    const routed = await until(
      "only /auth's samples",
      () => drawn(frame),
      (d) => d.root > 0 && d.root < whole.root && d.pbkdf2 >= 0.9 * d.root,
    );
    // The bar over the flame graph says what it holds (it said "Complete profile" alone).
    await until(
      'the routes chip',
      () => frame.locator('.flame-tab .xf-chip').allInnerTexts(),
      (c) => c.length === 1 && c[0] === 'Requests: GET /auth',
    );
    console.log(
      `[e2e] GET /auth: pbkdf2Sync ${((100 * routed.pbkdf2) / routed.root).toFixed(1)} % of ${routed.root} samples (whole run: ${((100 * whole.pbkdf2) / whole.root).toFixed(1)} % of ${whole.root})`,
    );
    await vs.screenshot('requests-auth');

    // After a reload the page opens as it was left: only /auth's samples, its box ticked.
    await vs.reloadWindow();
    frame = await vs.webviewFrame(`body[data-profile="${run.runDir.split('/').pop()}"][data-first-paint-ms] svg g.frame`, 120_000);
    const reopened = await until(
      "/auth's samples after a reload",
      () => drawn(frame),
      (d) => d.root > 0 && d.root < whole.root && d.pbkdf2 >= 0.9 * d.root,
    );
    console.log(`[e2e] after a reload: pbkdf2Sync ${((100 * reopened.pbkdf2) / reopened.root).toFixed(1)} % of ${reopened.root} samples`);
    await tab(frame, 'requests');
    await until(
      'GET /auth still picked',
      () => frame.locator('tr[data-route="GET /auth"]').getAttribute('class'),
      (c) => c === 'rq-picked',
    );

    // The slowest request's row: its span becomes the Timeline's range.
    await tab(frame, 'requests');
    await frame.locator('.rq-slowest button.rq-span').first().click();
    await until(
      'the range chip',
      () => frame.locator('.timeline-tab .xf-chip').allInnerTexts(),
      (c) => c.length === 2 && c[0] === 'Requests: GET /auth' && /^Time: /.test(c[1]),
    );
    // Its × gives every route's samples back: the chip goes, the range stays, and the tab's box is unticked.
    await tab(frame, 'flame');
    await frame.locator('.flame-tab .xf-chip[data-kind="routes"] + .xf-remove').click();
    await until(
      'the routes chip gone',
      () => frame.locator('.flame-tab .xf-chip').allInnerTexts(),
      (c) => c.length === 1 && /^Time: /.test(c[0]),
    );
    await tab(frame, 'requests');
    await until(
      'GET /auth unticked',
      () => frame.locator('tr[data-route="GET /auth"]').getAttribute('class'),
      (c) => !c,
    );
    failed = false;
  } finally {
    await vs.close({ failed });
  }
});
