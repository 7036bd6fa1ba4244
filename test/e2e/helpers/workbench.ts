import type { Frame, Page } from 'playwright-core';
import { openPalette, quickPickType, runCommand } from './quickInput';

/** Waits until the workbench has rendered and the extension host side has come up (status bar filled). */
export async function waitForWorkbench(page: Page, timeoutMs: number): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  // The explorer (or the empty-workspace view) shows once the workspace is resolved.
  await page.locator('.part.sidebar, .part.editor').first().waitFor({ state: 'visible', timeout: timeoutMs });
  // While the window is still loading a progress bar runs over the activity/status bar.
  await page
    .waitForFunction(() => !document.querySelector('.monaco-workbench .part.statusbar .statusbar-item .codicon-loading'), undefined, {
      timeout: timeoutMs,
    })
    .catch(() => undefined);
}

export async function statusBarTexts(page: Page): Promise<string[]> {
  const items = await page.locator('.part.statusbar .statusbar-item').all();
  const out: string[] = [];
  for (const item of items) {
    const text = (await item.innerText({ timeout: 1_000 }).catch(() => '')).replace(/\s+/g, ' ').trim();
    const aria = ((await item.getAttribute('aria-label', { timeout: 1_000 }).catch(() => null)) ?? '').trim();
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
  if (!wasOpen) await bell.click({ timeout: 5_000 });
  await center.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => undefined);
  const msgs = await center.locator('.notification-list-item-message').allInnerTexts();
  if (!wasOpen) await bell.click({ timeout: 5_000 }).catch(() => undefined);
  return msgs.map((m) => m.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** The message of the modal dialog on screen (showXxxMessage with modal: true), if any. */
export async function dialogMessage(page: Page): Promise<string | undefined> {
  const box = page.locator('.monaco-dialog-box');
  if (!(await box.isVisible().catch(() => false))) return undefined;
  const parts = await box.locator('.dialog-message-text, .dialog-message-detail').allInnerTexts();
  return parts.join('\n').trim();
}

/** Waits for a modal dialog and presses its button with this label (e.g. "Cancel"). */
export async function dialogButton(page: Page, label: string, timeoutMs = 10_000): Promise<void> {
  const box = page.locator('.monaco-dialog-box');
  await box.waitFor({ state: 'visible', timeout: timeoutMs });
  await box.locator('.dialog-buttons a.monaco-button, .dialog-buttons .monaco-button').getByText(label, { exact: true }).first().click();
  await box.waitFor({ state: 'hidden', timeout: timeoutMs });
}

export interface ActiveEditor {
  /** Workspace-relative path ('/'-separated) when the file is inside the workspace, else `path`. */
  file: string;
  /** What the active tab names: the absolute path for files, the title for other editors. */
  path: string;
  /** From the status bar's "Ln X, Col Y" (0 when the editor is not a text editor). */
  line: number;
  column: number;
}

export async function activeEditor(page: Page, workspace: string): Promise<ActiveEditor | undefined> {
  const tab = page.locator('.part.editor .editor-group-container.active .tabs-container .tab.active').first();
  if (!(await tab.count())) return undefined;
  const label = tab.locator('.monaco-icon-label').first();
  // A file with diagnostics (our findings) has " • 1 problem in this file" after its path.
  const aria =
    (await label.getAttribute('aria-label', { timeout: 1_000 }).catch(() => null)) ??
    (await tab.getAttribute('aria-label', { timeout: 5_000 })) ??
    '';
  const path = aria.replace(/ • .*$/, '').trim();
  const root = workspace.endsWith('/') ? workspace : `${workspace}/`;
  const file = path.startsWith(root) ? path.slice(root.length) : path;
  // A text editor's position shows in the status bar a moment after its tab; other editors never show one.
  const sel = (
    await page
      .locator('.part.statusbar [id="status.editor.selection"]')
      .innerText({ timeout: 5_000 })
      .catch(() => '')
  ).trim();
  const m = /Ln (\d+), Col (\d+)/.exec(sel);
  return { file, path, line: m ? Number(m[1]) : 0, column: m ? Number(m[2]) : 0 };
}

/** Opens a workspace file through Quick Open and waits for its tab; the folder tells same-named files apart. */
export async function openFile(page: Page, relPath: string, timeoutMs = 15_000): Promise<void> {
  const parts = relPath.split('/');
  const base = parts.pop() as string;
  const dir = parts.join('/');
  await openPalette(page);
  await quickPickType(page, relPath);
  const deadline = Date.now() + timeoutMs;
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  for (;;) {
    // Read every row at once: a locator's innerText waits its full timeout for a part a row lacks (a file at
    // the workspace root has no description), which made each open take 30 s.
    const offered = await rows.evaluateAll((els) =>
      els.map((el) => ({
        label: (el.querySelector('.label-name') as HTMLElement | null)?.innerText.trim() ?? '',
        desc: (el.querySelector('.label-description') as HTMLElement | null)?.innerText.trim() ?? '',
      })),
    );
    const i = offered.findIndex(
      ({ label, desc }) =>
        label === base && (dir === '' ? desc === '' : desc === dir || desc.endsWith(`/${dir}`) || desc.endsWith(`\\${dir}`)),
    );
    if (i >= 0) {
      await rows.nth(i).click();
      await page.locator(`.part.editor .tab.active[data-resource-name="${base}"]`).waitFor({ timeout: timeoutMs });
      await focusEditorText(page);
      return;
    }
    if (Date.now() > deadline) throw new Error(`Quick Open did not offer ${relPath}`);
    await page.waitForTimeout(250);
  }
}

/**
 * Gives the active text editor the focus, as a user's click would, when Quick Open handed it elsewhere (back to
 * a webview). VS Code asks CodeLens providers only while the editor text has focus: a blur cancels the pending
 * request (CI: a file's CodeLens never came). A custom editor (a profile's flame graph) has no text to focus.
 */
async function focusEditorText(page: Page): Promise<void> {
  const editor = page.locator('.part.editor .editor-group-container.active .monaco-editor').first();
  if (!(await editor.count())) return;
  const deadline = Date.now() + 5_000;
  while (!(await editor.evaluate((el) => el.classList.contains('focused')).catch(() => true)) && Date.now() < deadline) {
    await editor
      .locator('textarea.inputarea, .native-edit-context')
      .first()
      .focus({ timeout: 1_000 })
      .catch(() => undefined);
    await page.waitForTimeout(100);
  }
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
      const isActive =
        frame.name() === 'active-frame' || /fake\.html/.test(frame.url()) || (parent !== null && parent !== page.mainFrame());
      if (!isActive) continue;
      const found = await frame.$(selector).catch(() => null);
      if (found) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview frame contains ${selector} after ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}

export interface RunningExtension {
  name: string;
  /** As shown, e.g. "Startup Activation: 10ms". */
  activation: string;
  /** VS Code's own measure (code loading + activate call), in ms. */
  ms: number;
}

/** Reads "Developer: Show Running Extensions" (leaves that editor open). */
export async function runningExtensions(page: Page, timeoutMs = 15_000): Promise<RunningExtension[]> {
  await runCommand(page, 'Developer: Show Running Extensions');
  const rows = page.locator('.part.editor .editor-group-container.active .monaco-list-row .extension');
  await rows.first().waitFor({ timeout: timeoutMs });
  // Rows appear before their timings are filled in.
  await page.waitForTimeout(500);
  const out: RunningExtension[] = [];
  for (const row of await rows.all()) {
    const name = (await row.locator('.name').innerText()).trim();
    const activation = (
      await row
        .locator('.activation-time')
        .innerText({ timeout: 1_000 })
        .catch(() => '')
    ).trim();
    const m = /([\d.]+)\s*ms/.exec(activation);
    out.push({ name, activation, ms: m ? Number(m[1]) : NaN });
  }
  return out;
}
