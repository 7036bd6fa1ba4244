import type { Locator, Page } from 'playwright-core';

const widget = '.quick-input-widget';
const rows = `${widget} .quick-input-list .monaco-list-row`;

/** The visible quick input (palette, quick pick or input box); waits until it is shown. */
export async function quickInput(page: Page, timeoutMs = 10_000): Promise<Locator> {
  const w = page.locator(widget);
  await w.waitFor({ state: 'visible', timeout: timeoutMs });
  return w;
}

async function rowLabel(row: Locator): Promise<string> {
  const label = row.locator('.label-name').first();
  // Rows of a virtual list come and go: a short wait, not the default 30 s, for one that went.
  const text = (await label.count()) ? await label.innerText({ timeout: 1_000 }) : await row.innerText({ timeout: 1_000 });
  return text.replace(/\s+/g, ' ').trim();
}

/** Labels of the rows the open quick pick shows now (a virtual list: only what is rendered). */
export async function quickPickItems(page: Page): Promise<string[]> {
  await quickInput(page);
  const out: string[] = [];
  for (const row of await page.locator(rows).all()) out.push(await rowLabel(row));
  return out;
}

/** Types into the quick input's text box (replacing what is there) and waits for the list to settle. */
export async function quickPickType(page: Page, text: string): Promise<void> {
  const w = await quickInput(page);
  const input = w.locator('input').first();
  await input.fill(text);
  await page.waitForTimeout(300);
}

function matches(label: string, want: string | RegExp): boolean {
  return typeof want === 'string' ? label === want : want.test(label);
}

/** Waits until a row whose label equals `want` (or matches the RegExp) is shown; returns it. */
export async function quickPickFind(page: Page, want: string | RegExp, timeoutMs = 10_000): Promise<Locator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await quickInput(page, Math.max(1, deadline - Date.now()));
    for (const row of await page.locator(rows).all()) {
      if (matches(await rowLabel(row).catch(() => ''), want)) return row;
    }
    if (Date.now() > deadline) {
      const seen = await quickPickItems(page).catch(() => []);
      throw new Error(`quick pick has no item ${String(want)}; shown: ${JSON.stringify(seen)}`);
    }
    await page.waitForTimeout(200);
  }
}

/** Picks the item with this label in the open quick pick (clicks it: for multi-select picks, then press Enter). */
export async function quickPickSelect(page: Page, want: string | RegExp, timeoutMs = 10_000): Promise<void> {
  const row = await quickPickFind(page, want, timeoutMs);
  await row.click();
}

/** Presses Enter in the quick input: accepts an input box or the focused item. */
export async function quickPickAccept(page: Page): Promise<void> {
  const w = await quickInput(page);
  await w.locator('input').first().press('Enter');
}

/** Answers an input box (showInputBox) with text. */
export async function quickInputAnswer(page: Page, text: string): Promise<void> {
  await quickPickType(page, text);
  await quickPickAccept(page);
}

/**
 * Answers VS Code's simple file dialog (Open Profile…) with a full path. The dialog first fills in its folder
 * (text typed before that is replaced) and checks a typed path as it lists folders: Enter on a path it has not
 * checked yet is refused with "Please enter a path that exists". So the path is typed once the dialog holds its
 * folder, and Enter is pressed again until the dialog closes.
 */
export async function fileDialogAnswer(page: Page, path: string, timeoutMs = 30_000): Promise<void> {
  const w = await quickInput(page, 15_000);
  const input = w.locator('input').first();
  const deadline = Date.now() + timeoutMs;
  while (!(await input.inputValue()).endsWith('/') && Date.now() < deadline) await page.waitForTimeout(100);
  for (;;) {
    // A slow accept may close the dialog after the last look: then it took the path.
    if (!(await w.isVisible())) return;
    if ((await input.inputValue()) !== path) await input.fill(path);
    await page.waitForTimeout(500);
    if ((await input.inputValue()) !== path) continue;
    await input.press('Enter');
    const closed = await w
      .waitFor({ state: 'hidden', timeout: 2_000 })
      .then(() => true)
      .catch(() => false);
    if (closed) return;
    if (Date.now() > deadline) {
      const message = await w
        .locator('.quick-input-message')
        .innerText()
        .catch(() => '');
      throw new Error(`the file dialog did not take ${path}: ${message}`);
    }
  }
}

/** The quick input's title and prompt/message line, useful to know which step of a flow is showing. */
export async function quickInputTitle(page: Page): Promise<string> {
  const w = await quickInput(page);
  const parts = await w.locator('.quick-input-title, .quick-input-message').allInnerTexts();
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

export async function quickInputClose(page: Page): Promise<void> {
  if (await page.locator(widget).isVisible()) await page.keyboard.press('Escape');
  await page
    .locator(widget)
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => undefined);
}

/** Opens the command palette and returns the command titles matching the query (closes it again). */
export async function paletteItems(page: Page, query: string, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let items: string[] = [];
  // Extension commands join the palette once the extension host has registered them: retype until some show.
  do {
    await openPalette(page);
    await quickPickType(page, `>${query}`);
    items = (await quickPickItems(page)).filter((i) => !/^No matching (commands|results)$/.test(i));
    await quickInputClose(page);
    if (items.length) break;
    await page.waitForTimeout(500);
  } while (Date.now() < deadline);
  return items;
}

export async function openPalette(page: Page): Promise<void> {
  await quickInputClose(page);
  await page
    .locator('.monaco-workbench')
    .click({ position: { x: 5, y: 5 }, trial: true })
    .catch(() => undefined);
  await page.keyboard.press('F1');
  try {
    await quickInput(page, 5_000);
  } catch {
    await page.keyboard.press('Control+Shift+P');
    await quickInput(page, 10_000);
  }
}

/** Runs a command by its palette title, e.g. "Node Flame: Profile Node App". */
export async function runCommand(page: Page, title: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // A terminal that finishes starting takes the focus and closes the palette just opened: open it again.
      await openPalette(page);
      await quickPickType(page, `>${title}`);
      const row = await quickPickFind(page, title, Math.min(3_000, Math.max(1, deadline - Date.now())));
      await row.click();
      break;
    } catch (e) {
      // The palette does not refresh while open: commands registered meanwhile show only after retyping.
      if (Date.now() >= deadline) throw e;
    }
  }
  await page
    .locator(widget)
    .waitFor({ state: 'hidden', timeout: 1_000 })
    .catch(() => undefined);
}
