import { h } from './dom';

export interface MenuItem {
  label: string;
  /** The key that does the same outside the menu, shown on the right. */
  key?: string;
  run(): void;
}

let open: { el: HTMLElement; restore: Element | null; off: () => void } | undefined;

export function closeMenu(): void {
  if (!open) return;
  const { el, restore, off } = open;
  open = undefined;
  off();
  el.remove();
  if (restore instanceof HTMLElement) restore.focus();
}

/** A keyboard-usable context menu at (x, y): arrows move, Enter runs, Escape or a click elsewhere closes. */
export function showMenu(items: MenuItem[], x: number, y: number, label: string): void {
  closeMenu();
  if (!items.length) return;
  const buttons = items.map((it) =>
    h(
      'button',
      { class: 'menu-item', attrs: { type: 'button', role: 'menuitem', tabindex: '-1' } },
      h('span', { class: 'menu-label' }, it.label),
      it.key ? h('span', { class: 'menu-key' }, it.key) : null,
    ),
  );
  const el = h('div', { class: 'context-menu', attrs: { role: 'menu', 'aria-label': label } }, ...buttons);
  buttons.forEach((b, i) =>
    b.addEventListener('click', (e) => {
      e.stopPropagation();
      closeMenu();
      items[i].run();
    }),
  );
  el.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const move = (j: number) => buttons[(j + buttons.length) % buttons.length].focus();
    if (e.key === 'ArrowDown') move(i + 1);
    else if (e.key === 'ArrowUp') move(i - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(-1);
    else if (e.key === 'Escape' || e.key === 'Tab') closeMenu();
    else if (e.key === 'Enter' || e.key === ' ') buttons[Math.max(0, i)].click();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  const restore = document.activeElement;
  document.body.append(el);
  // Kept inside the window, through CSSOM (the page's CSP allows no inline style attributes).
  const { offsetWidth: w, offsetHeight: hh } = el;
  el.style.left = `${Math.max(2, Math.min(x, window.innerWidth - w - 2))}px`;
  el.style.top = `${Math.max(2, Math.min(y, window.innerHeight - hh - 2))}px`;
  const outside = (e: Event) => {
    if (!el.contains(e.target as Node)) closeMenu();
  };
  const blur = () => closeMenu();
  document.addEventListener('mousedown', outside, true);
  window.addEventListener('blur', blur);
  open = {
    el,
    restore,
    off: () => {
      document.removeEventListener('mousedown', outside, true);
      window.removeEventListener('blur', blur);
    },
  };
  buttons[0].focus();
}
