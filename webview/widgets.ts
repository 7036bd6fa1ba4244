// The toolkit elements the viewer builds its toolbars and tabs from (@vscode-elements), made in one way.
export function checkbox(label: string, checked: boolean, onChange: (v: boolean) => void): HTMLElement & { checked: boolean } {
  const el = document.createElement('vscode-checkbox') as unknown as HTMLElement & { checked: boolean };
  el.textContent = label;
  el.checked = checked;
  el.addEventListener('change', () => onChange(el.checked));
  return el;
}

export function textfield(placeholder: string, onInput: (v: string) => void): HTMLInputElement {
  const el = document.createElement('vscode-textfield') as unknown as HTMLInputElement;
  el.setAttribute('placeholder', placeholder);
  el.setAttribute('aria-label', placeholder);
  el.addEventListener('input', () => onInput(el.value));
  return el;
}

export function tabHeader(label: string, id: string): HTMLElement {
  const t = document.createElement('vscode-tab-header');
  t.setAttribute('slot', 'header');
  t.dataset.tab = id;
  t.textContent = label;
  return t;
}

export function tabPanel(...kids: Node[]): HTMLElement {
  const p = document.createElement('vscode-tab-panel');
  p.append(...kids);
  return p;
}

export function iconButton(icon: string, label: string, onClick: () => void, secondary = true): HTMLElement {
  const b = document.createElement('vscode-button');
  if (secondary) b.setAttribute('secondary', '');
  b.setAttribute('icon', icon);
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}
