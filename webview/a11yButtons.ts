// The toolbar's two buttons for the keyboard and screen reader: the Accessible View (Alt+F2) and the shortcuts (?).
import { showHelp } from './helpOverlay';
import type { Strings } from './tree';

function button(cls: string, icon: string, title: string, text: string, click: () => void): HTMLElement {
  const b = document.createElement('vscode-button');
  b.setAttribute('secondary', '');
  b.setAttribute('icon', icon);
  b.setAttribute('title', title);
  b.classList.add(cls);
  b.textContent = text;
  b.addEventListener('click', click);
  return b;
}

export function a11yButtons(s: Strings, accessibleView: () => void): HTMLElement[] {
  const help = button('a11y-help', 'keyboard', s.helpButton, '', () => showHelp(s));
  help.setAttribute('aria-label', s.helpButton);
  return [button('a11y-view', 'book', s.a11yViewHint, s.a11yView, accessibleView), help];
}
