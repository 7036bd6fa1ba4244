// What the accessibility test reads: the element the keyboard is on, mouse events counted, axe-core's verdict
// inside a webview's page, and the text of the editor that is active.
import type { Frame, Page } from 'playwright-core';

/** The focused element of a frame's document, as `tag.class[data-x=y]` (a focused custom element's own tag). */
export function activeElementOf(frame: Frame): Promise<string> {
  return frame.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    const data = Object.entries((el as HTMLElement).dataset ?? {}).map(([k, v]) => `[data-${k}=${v}]`);
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    return `${el.tagName.toLowerCase()}${cls}${data.join('')}`;
  });
}

/** Counts the real (trusted) mouse and pointer events the frame's window sees from now on. */
export async function countMouseEvents(frame: Frame): Promise<void> {
  await frame.evaluate(() => {
    const w = window as unknown as { __nfMouse?: number };
    if (w.__nfMouse !== undefined) return;
    w.__nfMouse = 0;
    for (const type of ['mousedown', 'mouseup', 'mousemove', 'pointerdown', 'pointerup', 'wheel', 'contextmenu'])
      window.addEventListener(type, (e) => void (e.isTrusted && (w.__nfMouse = (w.__nfMouse ?? 0) + 1)), true);
  });
}

export function mouseEventsOf(frame: Frame): Promise<number> {
  return frame.evaluate(() => (window as unknown as { __nfMouse?: number }).__nfMouse ?? -1);
}

export interface AxeFigure {
  view: string;
  theme: string;
  passes: number;
  /** `impact rule-id (n nodes): first target`. */
  violations: string[];
}

/** Runs axe-core in the frame's document (its source evaluated there: the page's CSP does not apply to that). */
export async function axeCheck(frame: Frame, axeSource: string, view: string, theme: string): Promise<AxeFigure> {
  // Whatever the last action started drawing is drawn.
  await frame.waitForTimeout(500);
  const has = await frame.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!has) await frame.evaluate(axeSource);
  const r = await frame.evaluate(async () => {
    type Node = { target: unknown[]; any: { data?: unknown }[] };
    type Result = { id: string; impact?: string; nodes: Node[] };
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
    const out = await axe.run(document, { resultTypes: ['violations'] });
    // The first nodes of each violation, with what axe measured (a contrast's colours and ratio).
    const nodes = (v: Result) =>
      v.nodes
        .slice(0, 3)
        .map((n) => `${JSON.stringify(n.target)}${n.any[0]?.data ? ` ${JSON.stringify(n.any[0].data)}` : ''}`)
        .join(' | ');
    return {
      passes: out.passes.length,
      violations: out.violations.map((v) => `${v.impact ?? 'none'} ${v.id} (${v.nodes.length} nodes): ${nodes(v)}`),
    };
  });
  return { view, theme, ...r };
}

/**
 * The lines of the active editor whose tab's label matches `tab`, read screen by screen (`pages` times PageDown):
 * the editor draws only the lines in view. Lines come in order, each once (no two lines of this text are alike).
 */
export async function editorLines(page: Page, tab: RegExp, pages: number): Promise<string[]> {
  const group = page.locator('.part.editor .editor-group-container.active');
  await group.locator('.tabs-container .tab.active', { hasText: tab }).waitFor({ timeout: 20_000 });
  const lines = group.locator('.editor-instance .view-lines');
  await lines.locator('.view-line').first().waitFor({ timeout: 10_000 });
  const seen: string[] = [];
  for (let p = 0; p <= pages; p++) {
    const shown = await lines.evaluate((el) =>
      [...el.querySelectorAll<HTMLElement>('.view-line')]
        .map((l) => ({ top: parseFloat(l.style.top), text: (l.textContent ?? '').replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text),
    );
    for (const t of shown) if (t.trim() && !seen.includes(t)) seen.push(t);
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(200);
  }
  return seen;
}
