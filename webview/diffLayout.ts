// The comparison page's elements: its toolbar (the two sides, size by, orientation, search, reset, Export), the
// zoom crumbs, the chart, the colour legend of change, the details strip and the table of changes' place.
import type { HostMessage, Orientation, SizeBy } from '../src/core/viewer/protocol';
import { orientationSelect, select } from './controls';
import { clear, h } from './dom';
import type { Strings } from './tree';
import { iconButton } from './widgets';

type Init = Extract<HostMessage, { type: 'init'; kind: 'diff' }>;

export function diffLayout(
  s: Strings,
  init: Init,
  orientation: Orientation,
  deltaColor: (delta: number) => string,
  on: { sizeBy(by: SizeBy): void; orientation(o: Orientation): void; resetZoom(): void; export(): void },
) {
  const errorEl = h('div', { class: 'error', attrs: { role: 'alert' } });
  const sizeSelect = select<SizeBy>(
    [
      ['after', s.sizeAfter],
      ['before', s.sizeBefore],
    ],
    'after',
  );
  sizeSelect.classList.add('size-by');
  sizeSelect.setAttribute('label', s.sizeBy);
  sizeSelect.addEventListener('change', () => on.sizeBy(sizeSelect.value as SizeBy));
  const search = document.createElement('vscode-textfield') as unknown as HTMLInputElement;
  search.classList.add('search');
  search.setAttribute('placeholder', s.search);
  search.setAttribute('aria-label', s.search);
  const matched = h('span', { class: 'matched', attrs: { 'aria-live': 'polite' } });
  const exportButton = iconButton('export', s.export, on.export);
  exportButton.classList.add('export');
  exportButton.setAttribute('title', s.export);
  const title = h(
    'span',
    { class: 'diff-title' },
    h('span', { class: 'side before' }, init.before.label),
    ' → ',
    h('span', { class: 'side after' }, init.after.label),
  );
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    title,
    h('label', { class: 'inline' }, s.sizeBy),
    sizeSelect,
    orientationSelect(s, orientation, on.orientation),
    search,
    matched,
    iconButton('home', s.reset, on.resetZoom),
    h('span', { class: 'grow' }),
    exportButton,
  );
  const crumbs = h('nav', { class: 'crumbs', attrs: { 'aria-label': s.a11yZoomPath } });
  const chart = h('div', { class: 'chart', attrs: { tabindex: '0', 'data-tree': 'diff', role: 'application', 'aria-label': s.a11yChart } });
  const charts = h('div', { class: 'charts' }, chart);
  const swatch = (delta: number, label: string) => {
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = deltaColor(delta);
    return h('span', { class: 'item' }, sw, label);
  };
  const legend = h('div', { class: 'legend diff-legend' });
  // Again after a theme switch: the colours of change are the theme's.
  const renderLegend = () => {
    clear(legend);
    legend.append(swatch(-0.15, s.shrank), swatch(-0.02, ''), swatch(0, s.unchanged), swatch(0.02, ''), swatch(0.15, s.grew));
  };
  renderLegend();
  // Until a frame is picked the strip explains the picture; the legend above it has only the colours.
  const details = h(
    'div',
    { class: 'details diff-details', attrs: { 'aria-live': 'polite', tabindex: '0' } },
    h('span', { class: 'dim' }, s.diffHint),
  );
  const changes = h('div', { class: 'changes' });
  const el = h(
    'div',
    { class: 'diff-view' },
    errorEl,
    toolbar,
    crumbs,
    charts,
    legend,
    details,
    h('h2', { class: 'changes-title' }, s.changes),
    changes,
  );
  return { el, errorEl, search, matched, crumbs, chart, charts, details, changes, renderLegend };
}
