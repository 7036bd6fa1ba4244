// The page's two dialogs: the keyboard shortcuts (`?`) and, where no editor can open it (the offline page), the
// Accessible View's text. Native <dialog>: modal, Escape closes it, and the focus goes back where it was.
import { h } from './dom';
import type { Strings } from './tree';

/** Each group of shortcuts: its heading's string key and [keys, what] string-key pairs. */
const SHORTCUTS: [group: string, rows: [keys: string, what: string][]][] = [
  [
    'helpPage',
    [
      ['Tab', 'helpTab'],
      ['?', 'helpHelp'],
      ['Alt+F2', 'helpAccessible'],
      ['/', 'helpSearch'],
    ],
  ],
  [
    'helpFlame',
    [
      ['↑ ↓', 'helpUpDown'],
      ['← →', 'helpLeftRight'],
      ['Space', 'helpSpace'],
      ['Enter', 'helpEnter'],
      ['Esc', 'helpEsc'],
      ['F · Shift+F · M · P · R · D · S', 'helpTransforms'],
      ['Shift+F10', 'helpMenu'],
    ],
  ],
  [
    'helpTables',
    [
      ['↑ ↓', 'helpRows'],
      ['← →', 'helpFold'],
      ['Enter', 'helpOpen'],
    ],
  ],
  [
    'helpTimeline',
    [
      ['+ −', 'helpZoom'],
      ['← →', 'helpPan'],
      ['Shift+← Shift+→', 'helpSelect'],
      ['0 · Home', 'helpWhole'],
      ['Esc', 'helpClear'],
    ],
  ],
];

function dialog(title: string, cls: string, ...body: HTMLElement[]): HTMLDialogElement {
  document.querySelector(`dialog.${cls}`)?.remove();
  const heading = h('h2', { attrs: { id: `${cls}-title` } }, title);
  const close = h('button', { class: 'dialog-close', attrs: { type: 'button' } }, '×');
  const el = h(
    'dialog',
    { class: `a11y-dialog ${cls}`, attrs: { 'aria-labelledby': `${cls}-title` } },
    h('div', { class: 'dialog-head' }, heading, close),
    ...body,
  );
  close.addEventListener('click', () => el.close());
  el.addEventListener('close', () => el.remove());
  // Keys pressed in the dialog are its own, not the views' behind it.
  el.addEventListener('keydown', (e) => e.stopPropagation());
  document.body.append(el);
  el.showModal();
  return el;
}

/** The shortcuts, grouped by view. */
export function showHelp(s: Strings): void {
  const groups = SHORTCUTS.map(([group, rows]) =>
    h(
      'section',
      null,
      h('h3', null, s[group]),
      h('dl', null, ...rows.flatMap(([keys, what]) => [h('dt', null, h('kbd', null, keys)), h('dd', null, s[what])])),
    ),
  );
  const d = dialog(s.helpTitle, 'help-overlay', ...groups);
  d.querySelector<HTMLElement>('.dialog-close')?.setAttribute('aria-label', s.close);
}

/** The Accessible View's text, read-only and selected so it can be copied at once. */
export function showTextDialog(title: string, text: string, s: Strings): void {
  const area = h('textarea', { class: 'a11y-text', attrs: { readonly: '', 'aria-label': title, spellcheck: 'false' } });
  area.value = text;
  const d = dialog(title, 'text-dialog', area);
  d.querySelector<HTMLElement>('.dialog-close')?.setAttribute('aria-label', s.close);
  area.focus();
  area.select();
}
