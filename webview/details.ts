import type { FrameInfo } from '../src/core/viewer/protocol';
import { clear, h, pct } from './dom';
import { weightText, type Weights } from './units';
import { SMALL, type FNode, type Strings } from './tree';

const loc = (p: { file: string; line: number; column: number }) =>
  `${p.file}${p.line ? `:${p.line}` : ''}${p.column ? `:${p.column}` : ''}`;

function facts(n: FNode, s: Strings, { total, unit }: Weights): Row[] {
  const f: FrameInfo | undefined = n.info;
  const out: Row[] = [];
  if (f) {
    out.push([s.file, f.file ? loc(f) : s.noFile]);
    if (f.generated) out.push([s.generated, loc(f.generated)]);
    out.push([s.category, s[`cat.${f.category}`] ?? f.category]);
    if (f.tier) out.push([s.tier, f.tier]);
    if (f.pkg) out.push([s.package, f.pkg]);
    if (f.lib) out.push([s.library, f.lib]);
  }
  out.push([s.self, `${pct(n.self, total)} · ${weightText(n.self, s, unit)}`]);
  out.push([s.total, `${pct(n.value, total)} · ${weightText(n.value, s, unit)}`]);
  return out;
}

/** The frame's full name: labels in the graph may be cut. */
export function fullName(n: FNode): string {
  const f = n.info;
  return n.frame === SMALL || !f ? n.name : f.name || n.name;
}

/** A detail row: label, value, and the value's class if it has one. */
export type Row = [label: string, value: string, cls?: string];

/** A card of details: a title (after a colour swatch, when given) over its rows; every text is set as text. */
export function fillCard(el: HTMLElement, name: string, rows: Row[], color?: string): void {
  clear(el);
  const title = h('div', { class: 'title' });
  if (color) {
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = color;
    title.append(sw);
  }
  title.append(name);
  el.append(title, h('dl', null, ...rows.flatMap(([k, v, cls]) => [h('dt', null, k), h('dd', cls ? { class: cls } : null, v)])));
}

/** Shows the hover card `el` beside the mouse, kept inside the window; positioned through CSSOM, which the CSP allows. */
export function placeTooltip(el: HTMLElement, ev: MouseEvent): void {
  el.classList.add('visible');
  const { offsetWidth: w, offsetHeight: hh } = el;
  let x = ev.clientX + 12;
  let y = ev.clientY + 12;
  if (x + w > window.innerWidth) x = Math.max(4, ev.clientX - w - 12);
  if (y + hh > window.innerHeight) y = Math.max(4, ev.clientY - hh - 12);
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
}

function fill(el: HTMLElement, n: FNode, s: Strings, w: Weights, color?: string): void {
  fillCard(el, fullName(n), facts(n, s, w), color);
}

/** The details strip under the graph, for the selected frame. */
export function showDetails(el: HTMLElement, n: FNode, s: Strings, w: Weights, color: string): void {
  fill(el, n, s, w, color);
}

/** Hover card that follows the mouse. */
export function showTooltip(el: HTMLElement, n: FNode | undefined, ev: MouseEvent | undefined, s: Strings, w: Weights): void {
  if (!n || !ev) {
    el.classList.remove('visible');
    return;
  }
  fill(el, n, s, w);
  placeTooltip(el, ev);
}
