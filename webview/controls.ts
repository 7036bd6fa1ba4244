// Form controls shared by the profile and comparison views (VS Code's webview elements).
import type { Orientation } from '../src/core/viewer/protocol';
import type { Strings } from './tree';

export type Select = HTMLElement & { value: string };

export function select<T extends string>(values: Array<[T, string]>, value: T): Select {
  const el = document.createElement('vscode-single-select') as unknown as Select;
  for (const [v, label] of values) {
    const o = document.createElement('vscode-option');
    o.setAttribute('value', v);
    if (v === value) o.setAttribute('selected', '');
    o.textContent = label;
    el.append(o);
  }
  return el;
}

/** Flame (root at the bottom) or icicle (root at the top); `onChange` remembers the choice. */
export function orientationSelect(s: Strings, value: Orientation, onChange: (o: Orientation) => void): Select {
  const el = select<Orientation>(
    [
      ['flame', s.orientFlame],
      ['icicle', s.orientIcicle],
    ],
    value,
  );
  el.classList.add('orientation');
  el.setAttribute('aria-label', s.orientation);
  el.setAttribute('label', s.orientation);
  el.setAttribute('title', s.orientation);
  el.addEventListener('change', () => onChange(el.value as Orientation));
  return el;
}
