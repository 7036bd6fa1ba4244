// The comparison's table of biggest changes: one row a function, before and after share, change, and bytes grown.
import { formatWeight, type DiffChangeInfo, type HostMessage } from '../src/core/viewer/protocol';
import { h } from './dom';
import type { Strings } from './tree';

type Init = Extract<HostMessage, { type: 'init'; kind: 'diff' }>;

export const share = (x: number) => `${(x * 100).toFixed(Math.abs(x) >= 0.1 || x === 0 ? 1 : 2)}%`;
export const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${share(Math.abs(x))}`;
export const loc = (file: string, line: number) => (file ? `${file}${line ? `:${line}` : ''}` : '');

/** The table; `choose` is told of a click (Ctrl/Cmd: open to the side) or Enter on a row. */
export function changesTable(
  init: Init,
  s: Strings,
  deltaColor: (delta: number) => string,
  choose: (c: DiffChangeInfo, row: HTMLTableRowElement, focus: boolean) => void,
): HTMLTableElement {
  // Two heap profiles: how many more bytes, beside the change of share.
  const unit = init.after.unit ?? 'samples';
  const growth = init.changes.some((c) => c.growth !== undefined);
  const lang = document.documentElement.lang || navigator.language;
  // The rows are in order of their own share's change; Growth stays the sixth column a heap comparison has had.
  const head = h(
    'tr',
    null,
    ...[s.function, s.location, s.before, s.after, s.delta, ...(growth ? [s.growth] : []), s.ownDelta].map((t, i) =>
      h('th', { class: i >= 2 ? 'num' : '', attrs: t === s.ownDelta ? { title: s.ownDeltaHint } : {} }, t),
    ),
  );
  const body = h('tbody');
  init.changes.forEach((c, i) => {
    const row = h(
      'tr',
      { class: c.delta > 0 ? 'up' : c.delta < 0 ? 'down' : '', attrs: { tabindex: '0', 'data-index': String(i) } },
      h('td', { class: 'name' }, c.name),
      h('td', { class: 'loc', attrs: { title: loc(c.file, c.line) } }, loc(c.file, c.line)),
      h('td', { class: 'num' }, share(c.before)),
      h('td', { class: 'num' }, share(c.after)),
      h('td', { class: 'num delta' }, signed(c.delta)),
      growth
        ? h('td', { class: 'num growth' }, c.growth === undefined ? '' : `${c.growth > 0 ? '+' : ''}${formatWeight(c.growth, unit, lang)}`)
        : null,
      h('td', { class: 'num own-delta' }, c.ownDelta === undefined ? '' : signed(c.ownDelta)),
    );
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = deltaColor(c.delta);
    row.firstChild!.insertBefore(sw, row.firstChild!.firstChild);
    row.addEventListener('click', (e) => choose(c, row, e.ctrlKey || e.metaKey));
    row.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') choose(c, row, true);
      else if (e.key === 'ArrowDown') (row.nextElementSibling as HTMLElement | null)?.focus();
      else if (e.key === 'ArrowUp') (row.previousElementSibling as HTMLElement | null)?.focus();
      else return;
      e.preventDefault();
    });
    body.append(row);
  });
  return h('table', { class: 'changes-table' }, h('thead', null, head), body);
}
