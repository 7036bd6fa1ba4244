// The flame graph tab's toolbar: which tree, which way up, search, reset zoom, the view toggles, and (in the editor)
// the sample type and Export.
import type { Orientation, TreeKind, ViewOptions, WebviewMessage } from '../src/core/viewer/protocol';
import { orientationSelect, select, type Select } from './controls';
import { h } from './dom';
import { sampleTypePicker } from './sampleType';
import type { ViewerState } from './viewerState';
import { checkbox, textfield } from './widgets';
import { a11yButtons } from './a11yButtons';

export interface FlameToolbar {
  el: HTMLElement;
  search: HTMLInputElement;
  regex: HTMLElement & { checked: boolean };
  matched: HTMLElement;
  treeSelect: Select;
  orientation: Select;
}

export function flameToolbar(
  st: ViewerState,
  on: {
    post(m: WebviewMessage): void;
    search(): void;
    resetZoom(): void;
    showTree(k: TreeKind): void;
    orientation(o: Orientation): void;
    setOptions(patch: Partial<ViewOptions>): void;
  },
): FlameToolbar {
  const s = st.strings;
  const search = textfield(s.search, on.search);
  search.classList.add('search');
  const regex = checkbox(s.regex, false, on.search) as HTMLElement & { checked: boolean };
  const matched = h('span', { class: 'matched', attrs: { 'aria-live': 'polite' } });
  const reset = document.createElement('vscode-button');
  reset.setAttribute('secondary', '');
  reset.setAttribute('icon', 'home');
  reset.textContent = s.reset;
  reset.addEventListener('click', on.resetZoom);
  const treeSelect = select<TreeKind>(
    [
      ['top', s.topDown],
      ['bottom', s.bottomUp],
    ],
    st.kind,
  );
  treeSelect.classList.add('tree-select');
  // The select's own label: its inner combobox is what a screen reader reaches.
  treeSelect.setAttribute('label', s.a11yTreeSelect);
  treeSelect.addEventListener('change', () => on.showTree(treeSelect.value as TreeKind));
  const orientation = orientationSelect(s, st.persisted.orientation ?? 'flame', on.orientation);
  const mergeBy = select<'function' | 'line'>(
    [
      ['function', s.byFunction],
      ['line', s.byLine],
    ],
    st.options.mergeBy ?? 'function',
  );
  mergeBy.classList.add('merge-by');
  mergeBy.setAttribute('label', s.mergeBy);
  mergeBy.addEventListener('change', () => on.setOptions({ mergeBy: mergeBy.value as 'function' | 'line' }));
  const el = h(
    'div',
    { class: 'toolbar' },
    treeSelect,
    orientation,
    search,
    regex,
    matched,
    reset,
    h('span', { class: 'grow' }),
    checkbox(s.hideNode, !!st.options.hideNodeInternals, (v) => on.setOptions({ hideNodeInternals: v })),
    checkbox(s.collapseDeps, !!st.options.collapseDependencies, (v) => on.setOptions({ collapseDependencies: v })),
    h('label', { class: 'inline' }, s.mergeBy),
    mergeBy,
    ...a11yButtons(s, () => on.post({ type: 'accessibleView', tree: st.kind })),
  );
  // The offline page has no host to read another sample type or write a file.
  const picker = st.offline ? undefined : sampleTypePicker(st.info, s.sampleType, on.post);
  if (picker) el.prepend(picker);
  if (!st.offline) {
    const exportButton = document.createElement('vscode-button');
    exportButton.setAttribute('secondary', '');
    exportButton.setAttribute('icon', 'export');
    exportButton.setAttribute('title', s.exportHint);
    exportButton.classList.add('export');
    exportButton.textContent = s.export;
    exportButton.addEventListener('click', () => on.post({ type: 'export' }));
    el.append(exportButton);
  }
  return { el, search, regex, matched, treeSelect, orientation };
}
