// Call-tree transforms and the sandwich view in a real VS Code, on a --prof profile of the guide's Express app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { startVSCode, repoRoot, type VSCode } from './helpers';
import { profileExpressApp } from '../helpers/expressApp';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';
const HANDLER = '(anonymous) app.js:23';

/** What a flame graph draws now: every frame's name and value, its root's name and value, and the root's children. */
function drawn(frame: Frame, sel = '[data-tree="top"]') {
  return frame.evaluate((sel) => {
    type Drawn = { name: string; value: number; children?: Drawn[] };
    const gs = [...document.querySelectorAll(`${sel} g.frame`)] as (Element & { __data__?: { parent: unknown; data: Drawn } })[];
    const root = gs.find((g) => g.__data__ && !g.__data__.parent)?.__data__?.data;
    const nodes = gs.map((g) => g.__data__!.data);
    return {
      top: root?.name ?? '',
      root: root?.value ?? 0,
      kids: (root?.children ?? []).map((c) => [c.name, c.value] as [string, number]),
      names: nodes.map((n) => n.name),
    };
  }, sel);
}

/** Right-clicks the widest drawn frame with this name in `sel` and runs the menu item with this label. */
async function onFrame(frame: Frame, sel: string, name: string, item: string | RegExp): Promise<void> {
  const frames = frame.locator(`${sel} g.frame[name="${name}"]`);
  const widest = await frames.evaluateAll((gs) => {
    const w = gs.map((g) => g.getBoundingClientRect().width);
    return w.indexOf(Math.max(...w));
  });
  await frames.nth(widest).click({ button: 'right' });
  const menu = frame.locator('.context-menu');
  await menu.waitFor({ timeout: 10_000 });
  // The menu takes the keyboard: arrows to the item, Enter runs it.
  const labels = await menu.locator('.menu-item .menu-label').allInnerTexts();
  const at = labels.findIndex((l) => (typeof item === 'string' ? l === item : item.test(l)));
  assert.ok(at >= 0, `menu item ${String(item)} in ${JSON.stringify(labels)}`);
  for (let i = 0; i < at; i++) await frame.page().keyboard.press('ArrowDown');
  await frame.page().keyboard.press('Enter');
  await menu.waitFor({ state: 'detached', timeout: 10_000 });
}

/** Polls until the chips of the flame tab read `want`. */
async function chipsAre(frame: Frame, want: string[]): Promise<void> {
  let got: string[] = [];
  for (let i = 0; i < 60; i++) {
    got = await frame.locator('.flame-tab .xf-chip').allInnerTexts();
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await frame.waitForTimeout(250);
  }
  assert.deepEqual(got, want, 'transform chips');
}

/** Polls `check` on the drawn tree until it holds (the new tree arrives after the chips). */
async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await get();
  for (let i = 0; i < 60 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await get();
  }
  assert.ok(ok(v), `${what}: ${JSON.stringify(v).slice(0, 400)}`);
  return v;
}

test('transforms and the sandwich view: focus, merge, sandwich, export, reload', { timeout: 600_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-xform-'));
  copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
  const log = await profileExpressApp({ cwd: ws, profiler: 'prof', load: { seconds: 3, connections: 4 } });
  const label = log.split('/').pop()!;
  const vs: VSCode = await startVSCode({ workspace: ws, name: 'transforms', viewport: { width: 1400, height: 900 } });
  let failed = true;
  try {
    await vs.waitForCommand(SHOW);
    await vs.runCommand(SHOW);
    await vs.quickInputAnswer(log);
    const ready = `body[data-profile="${label}"][data-first-paint-ms] svg g.frame`;
    let frame = await vs.webviewFrame(ready, 120_000);
    const before = await drawn(frame);
    assert.ok(before.names.includes('pbkdf2Sync') && before.names.includes('handle') && before.names.includes(HANDLER), 'the app is drawn');
    const total = before.root;
    // The handler's source beside the graph, with its CodeLens: the editor follows the transforms too.
    await frame.locator(`[data-tree="top"] g.frame[name="${HANDLER}"]`).first().click();
    const lenses = vs.page.locator('.part.editor .codelens-decoration a', { hasText: /total/ });
    await lenses.first().waitFor({ state: 'attached', timeout: 30_000 });
    await frame.click('vscode-button[icon="home"]');

    // Focus on pbkdf2Sync: it is the root's only child, at 100 %.
    await onFrame(frame, '[data-tree="top"]', 'pbkdf2Sync', 'Focus on function');
    await chipsAre(frame, ['Focus: pbkdf2Sync']);
    // app.js is no longer in the tree: its CodeLens goes.
    await until(
      'no CodeLens on app.js',
      () => lenses.count(),
      (n) => n === 0,
    );
    const focused = await until(
      'pbkdf2Sync is the root',
      () => drawn(frame),
      (d) =>
        d.kids.length === 1 &&
        d.kids[0][0] === 'pbkdf2Sync' &&
        d.kids[0][1] === d.root &&
        d.root > 0 &&
        d.root < total &&
        !d.names.includes('handle'),
    );
    // The hover card (a click would open pbkdf2Sync's source over app.js).
    await frame.locator('[data-tree="top"] g.frame[name="pbkdf2Sync"]').first().hover();
    await until(
      'the hover card says 100 %',
      () => frame.locator('.tooltip').innerText(),
      (t) => /Total\s*100(\.0)?%/.test(t),
    );
    console.log(`[e2e] focus on pbkdf2Sync: ${focused.root} of ${total} samples, root at 100 %`);
    // The Timeline follows the focus: its activity graph counts only pbkdf2Sync's samples.
    await frame.locator('vscode-tab-header[data-tab="timeline"]').dispatchEvent('click');
    const timed = await until(
      "the Timeline counts pbkdf2Sync's samples",
      async () => Number((await frame.locator('.timeline-tab').getAttribute('data-samples')) ?? 0),
      (n) => n === focused.root,
    );
    console.log(`[e2e] Timeline after the focus: ${timed} samples of ${total}`);
    await frame.locator('vscode-tab-header[data-tab="flame"]').dispatchEvent('click');
    await vs.screenshot('transforms-focus');

    // An export now writes the transformed tree: folded stacks, every one starting at pbkdf2Sync.
    await frame.click('vscode-button.export');
    await vs.quickPickSelect('folded');
    await vs.quickPickWait();
    await vs.quickPickAccept();
    // The file shows up before its text is in it: wait for whole lines.
    const text = await until(
      'the export is written',
      async () =>
        readdirSync(ws)
          .filter((f) => f.endsWith('.folded'))
          .map((f) => readFileSync(join(ws, f), 'utf8'))[0] ?? '',
      (t) => t.endsWith('\n'),
    );
    const stacks = text.trim().split('\n');
    assert.ok(stacks.length > 1 && stacks.every((l) => /^pbkdf2Sync[ ;]/.test(l)), `exported stacks: ${stacks.slice(0, 3).join(' | ')}`);
    assert.equal(
      stacks.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0),
      focused.root,
      'the export holds the focused samples',
    );

    // Remove the focus; merge every `handle` (Express has several functions of that name): none is left, same total.
    await frame.locator('.flame-tab .xf-remove').first().click();
    await chipsAre(frame, []);
    await until(
      'the whole profile is back',
      () => drawn(frame),
      (d) => d.root === total,
    );
    await until(
      'the CodeLens is back',
      () => lenses.count(),
      (n) => n > 0,
    );
    const merged: string[] = [];
    for (let i = 0; i < 10; i++) {
      const d = await drawn(frame);
      if (!d.names.includes('handle')) break;
      await onFrame(frame, '[data-tree="top"]', 'handle', 'Merge function');
      merged.push('Merge: handle');
      await chipsAre(frame, merged);
      await until(
        'the merged tree is drawn',
        () => frame.evaluate(() => document.querySelectorAll('.flame-tab .xf-chip').length),
        (n) => n === merged.length,
      );
    }
    const after = await until(
      'no handle frame is drawn',
      () => drawn(frame),
      (d) => !d.names.includes('handle') && d.root === total,
    );
    assert.ok(after.names.includes(HANDLER), 'the handler is still there');
    // Over the whole tree, not just what is drawn: the host's search finds no frame named handle.
    await frame.click('vscode-checkbox:has-text("Regex")');
    await frame.click('vscode-textfield.search');
    await vs.page.keyboard.type('^handle$');
    await until(
      'search finds no handle',
      () => frame.locator('.matched').innerText(),
      (t) => /^0(\.0+)?% of samples matched/.test(t),
    );
    await frame.click('vscode-textfield.search');
    await vs.page.keyboard.press('Control+A');
    await vs.page.keyboard.press('Backspace');
    console.log(`[e2e] merged ${merged.length} functions named handle; total stays ${after.root}`);
    await vs.screenshot('transforms-merge');

    // The sandwich on pbkdf2Sync: the /auth handler among its callers, the PBKDF2 job among its callees.
    await onFrame(frame, '[data-tree="top"]', 'pbkdf2Sync', 'Sandwich view');
    const callers = await until(
      'the sandwich callers',
      () => drawn(frame, '[data-sandwich="callers"]'),
      (d) => d.top === 'pbkdf2Sync' && d.names.includes(HANDLER),
    );
    const callees = await until(
      'the sandwich callees',
      () => drawn(frame, '[data-sandwich="callees"]'),
      (d) => d.top === 'pbkdf2Sync' && d.names.some((n) => /PBKDF2/.test(n)),
    );
    assert.equal(callers.root, callees.root, 'both halves weigh what pbkdf2Sync does');
    console.log(
      `[e2e] sandwich on pbkdf2Sync: callers ${callers.kids.map((k) => k[0]).join(' | ')}; callees ${callees.kids.map((k) => k[0]).join(' | ')}`,
    );
    await vs.screenshot('transforms-sandwich');
    // Each half zooms on its own.
    await frame.locator('[data-sandwich="callers"] g.frame', { hasText: HANDLER }).first().click();
    await until(
      'callers zoomed',
      () => drawn(frame, '[data-sandwich="callees"]'),
      (d) => d.root === callees.root,
    );
    await frame.locator('.sandwich .sw-close').click();

    // After a reload the stack is still applied, and shown.
    await vs.reloadWindow();
    frame = await vs.webviewFrame(ready, 120_000);
    await chipsAre(frame, merged);
    const reloaded = await until(
      'the reloaded tree is merged',
      () => drawn(frame),
      (d) => d.root === total && d.names.length > 5,
    );
    assert.ok(!reloaded.names.includes('handle'), 'still no handle after the reload');

    assert.deepEqual(vs.cspViolations(), [], 'no CSP violations');
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});
