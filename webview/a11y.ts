// What a screen reader hears of the page: one polite live region the views say things through (the frame the
// arrows reached, the Timeline's selection), and the sentence said for a frame.
import { fmt, h, pct } from './dom';
import { fullName } from './details';
import { SMALL, type FNode, type Strings } from './tree';
import './a11y.css';

let region: HTMLElement | undefined;

/** The page's live region, made on first use (visually hidden, read by screen readers). */
export function liveRegion(): HTMLElement {
  if (!region?.isConnected) {
    region = h('div', { class: 'sr-only a11y-live', attrs: { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' } });
    document.body.append(region);
  }
  return region;
}

/** Says `text` once: the region is emptied first, so the same text said twice is heard twice. */
export function announce(text: string): void {
  const el = liveRegion();
  el.textContent = '';
  // A separate task: screen readers miss a change made in the same task as the clearing.
  setTimeout(() => (el.textContent = text), 30);
}

/** A frame as one sentence: name, file:line, total and self share, depth under the root, category. */
export function frameSentence(n: FNode, s: Strings, total: number): string {
  const f = n.frame === SMALL ? undefined : n.info;
  const where = f?.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : s.noFile;
  const category = f ? (s[`cat.${f.category}`] ?? f.category) : '';
  return fmt(s.a11yFrame, fullName(n), where, pct(n.value, total), pct(n.self, total), n.depth, category);
}
