import type { Frame, Page } from 'playwright-core';
import { openPalette, quickPickType, quickPickFind } from './quickInput';

/** Waits until the workbench has rendered and the extension host side has come up (status bar filled). */
export async function waitForWorkbench(page: Page, timeoutMs: number): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  // The explorer (or the empty-workspace view) shows once the workspace is resolved.
  await page.locator('.part.sidebar, .part.editor').first().waitFor({ state: 'visible', timeout: timeoutMs });
  // While the window is still loading a progress bar runs over the activity/status bar.
  await page
    .waitForFunction(() => !document.querySelector('.monaco-workbench .part.statusbar .statusbar-item .codicon-loading'), undefined, { timeout: timeoutMs })
    .catch(() => undefined);
}

export async function statusBarTexts(page: Page): Promise<string[]> {
  const items = await page.locator('.part.statusbar .statusbar-item').all();
  const out: string[] = [];
  for (const item of items) {
    const text = (await item.innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
    const aria = ((await item.getAttribute('aria-label').catch(() => null)) ?? '').trim();
    const t = text || aria;
    if (t) out.push(t);
  }
  return out;
}

/** Messages of the notification toasts on screen now (hidden ones are in the notification center). */
export async function notifications(page: Page): Promise<string[]> {
  const msgs = await page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allInnerTexts();
  return msgs.map((m) => m.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** All notifications, including toasts that already hid: opens the notification center, reads, closes it. */
export async function allNotifications(page: Page): Promise<string[]> {
  const bell = page.locator('.part.statusbar [id="status.notifications"] a, .part.statusbar [id="status.notifications"]').first();
  const center = page.locator('.notifications-center');
  const wasOpen = await center.isVisible().catch(() => false);
  if (!wasOpen) await bell.click();
  await center.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => undefined);
  const msgs = await center.locator('.notification-list-item-message').allInnerTexts();
  if (!wasOpen) await bell.click().catch(() => undefined);
  return msgs.map((m) => m.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

export interface ActiveEditor {
  /** Workspace-relative path as the breadcrumbs show it ('/'-separated), or the tab's name without breadcrumbs. */
  file: string;
  line: number;
  column: number;
}

export async function activeEditor(page: Page): Promise<ActiveEditor | undefined> {
  const tab = page.locator('.part.editor .tabs-container .tab.active').first();
  if (!(await tab.count())) return undefined;
  const name = ((await tab.getAttribute('data-resource-name')) ?? (await tab.innerText())).trim();
  let file = name;
  const crumbs = page.locator('.part.editor .editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item');
  const parts: string[] = [];
  for (const c of await crumbs.all()) {
    const label = c.locator('.monaco-icon-label').first();
    if (!(await label.count())) break;
    const cls = (await label.getAttribute('class')) ?? '';
    if (!/folder-icon|file-icon/.test(cls)) break;
    parts.push((await label.innerText()).trim());
    if (/file-icon/.test(cls) && !/folder-icon/.test(cls)) break;
  }
  if (parts.length && parts[parts.length - 1] === name) file = parts.join('/');
  const sel = (await page.locator('.part.statusbar [id="status.editor.selection"]').innerText().catch(() => '')).trim();
  const m = /Ln (\d+), Col (\d+)/.exec(sel);
  return { file, line: m ? Number(m[1]) : 0, column: m ? Number(m[2]) : 0 };
}

/** Opens a workspace file through Quick Open (Ctrl+P) and waits for its tab. */
export async function openFile(page: Page, relPath: string, timeoutMs = 15_000): Promise<void> {
  await openPalette(page);
  await quickPickType(page, relPath);
  const base = relPath.split('/').pop() as string;
  const row = await quickPickFind(page, base, timeoutMs);
  await row.click();
  await page.locator(`.part.editor .tab.active[data-resource-name="${base}"]`).waitFor({ timeout: timeoutMs });
}

/**
 * The frame of a webview (`iframe.webview` → `#active-frame`) whose document contains `selector`.
 * Webviews load lazily, so this polls until one shows up.
 */
export async function webviewFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const parent = frame.parentFrame();
      const isActive = frame.name() === 'active-frame' || /fake\.html/.test(frame.url()) || (parent !== null && parent !== page.mainFrame());
      if (!isActive) continue;
      const found = await frame.$(selector).catch(() => null);
      if (found) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview frame contains ${selector} after ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}
