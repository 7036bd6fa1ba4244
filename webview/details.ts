import type { FrameInfo } from '../src/core/viewer/protocol';
import { clear, fmt, h, pct } from './dom';
import { frameCache, SMALL, type FNode, type Strings } from './tree';

const loc = (p: { file: string; line: number; column: number }) => `${p.file}${p.line ? `:${p.line}` : ''}${p.column ? `:${p.column}` : ''}`;

function facts(n: FNode, s: Strings, total: number): Array<[string, string]> {
  const f: FrameInfo | undefined = frameCache.get(n.frame);
  const out: Array<[string, string]> = [];
  if (f) {
    out.push([s.file, f.file ? loc(f) : s.noFile]);
    if (f.generated) out.push([s.generated, loc(f.generated)]);
    out.push([s.category, s[`cat.${f.category}`] ?? f.category]);
    if (f.tier) out.push([s.tier, f.tier]);
    if (f.pkg) out.push([s.package, f.pkg]);
    if (f.lib) out.push([s.library, f.lib]);
  }
  out.push([s.self, `${pct(n.self, total)} · ${fmt(s.samples, Math.round(n.self))}`]);
  out.push([s.total, `${pct(n.value, total)} · ${fmt(s.samples, Math.round(n.value))}`]);
  return out;
}

function fill(el: HTMLElement, n: FNode, s: Strings, total: number, color?: string): void {
  clear(el);
  const f = frameCache.get(n.frame);
  const title = h('div', { class: 'title' });
  if (color) {
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = color;
    title.append(sw);
  }
  // The full name (labels may be cut); always as text.
  title.append(n.frame === SMALL || !f ? n.name : f.name || n.name);
  el.append(title, h('dl', null, ...facts(n, s, total).flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
}

/** The details strip under the graph, for the selected frame. */
export function showDetails(el: HTMLElement, n: FNode, s: Strings, total: number, color: string): void {
  fill(el, n, s, total, color);
}

/** Hover card that follows the mouse; positioned through CSSOM, which the CSP allows. */
export function showTooltip(el: HTMLElement, n: FNode | undefined, ev: MouseEvent | undefined, s: Strings, total: number): void {
  if (!n || !ev) {
    el.classList.remove('visible');
    return;
  }
  fill(el, n, s, total);
  el.classList.add('visible');
  const { offsetWidth: w, offsetHeight: hh } = el;
  let x = ev.clientX + 12;
  let y = ev.clientY + 12;
  if (x + w > window.innerWidth) x = Math.max(4, ev.clientX - w - 12);
  if (y + hh > window.innerHeight) y = Math.max(4, ev.clientY - hh - 12);
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
}
