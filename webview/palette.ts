// Colours from the theme: each category's CSS variable resolved through a hidden swatch, read again when the
// theme changes.
import { CATEGORIES } from '../src/core/viewer/protocol';
import { h } from './dom';
import { SMALL, type FNode } from './tree';

export class ThemePalette {
  colors: Record<string, string> = {};
  private readonly el = h(
    'div',
    { class: 'palette', attrs: { 'aria-hidden': 'true' } },
    ...CATEGORIES.map((c) => h('span', { class: `cat-${c}` })),
    h('span', { class: 'cat-match' }),
    h('span', { class: 'cat-small' }),
  );

  constructor() {
    document.body.append(this.el);
  }

  read(): void {
    this.colors = {};
    for (const el of Array.from(this.el.children)) this.colors[el.className.slice(4)] = getComputedStyle(el).backgroundColor;
  }

  /** Theme switches change the CSS variables (VS Code sets the body's class): the colours are read again, then `repaint`. */
  onThemeChange(repaint: () => void): void {
    new MutationObserver(() => {
      this.read();
      repaint();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  /** Search matches are drawn in this colour. */
  get match(): string {
    return this.colors.match ?? '#e600e6';
  }

  colorOf(n: FNode): string {
    if (n.frame === SMALL) return this.colors.small;
    if (n.frame < 0) return this.colors.program;
    return this.colors[n.info?.category ?? 'unaccounted'] ?? this.colors.unaccounted;
  }
}
