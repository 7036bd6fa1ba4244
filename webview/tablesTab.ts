// The tables tab: the top-down and bottom-up tables (one shown, picked by a select) and their filter.
import type { TreeKind } from '../src/core/viewer/protocol';
import { select, type Select } from './controls';
import { h } from './dom';
import type { Strings } from './tree';
import { textfield } from './widgets';

export interface TablesTab {
  el: HTMLElement;
  tableSelect: Select;
  filter: HTMLInputElement;
  /** Where each tree's table is drawn; the other one is hidden. */
  tableBoxes: Record<TreeKind, HTMLElement>;
}

export function tablesTab(s: Strings, on: { filter(v: string): void; shown(k: TreeKind): void }): TablesTab {
  const tableSelect = select<TreeKind>(
    [
      ['top', s.topDownTable],
      ['bottom', s.bottomUpTable],
    ],
    'top',
  );
  tableSelect.setAttribute('label', s.a11yTableSelect);
  const filter = textfield(s.filter, on.filter);
  const tableBoxes = { top: h('div', { class: 'table' }), bottom: h('div', { class: 'table' }) };
  tableBoxes.bottom.hidden = true;
  tableSelect.addEventListener('change', () => {
    const k = tableSelect.value as TreeKind;
    tableBoxes.top.hidden = k !== 'top';
    tableBoxes.bottom.hidden = k !== 'bottom';
    on.shown(k);
  });
  const el = h('div', { class: 'tables-tab' }, h('div', { class: 'toolbar' }, tableSelect, filter), tableBoxes.top, tableBoxes.bottom);
  return { el, tableSelect, filter, tableBoxes };
}
