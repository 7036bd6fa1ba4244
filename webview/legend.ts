// The flame graph tab's two small bars: the colour legend of the categories shown, and the zoom path (crumbs).
import { CATEGORIES, type ProfileInfo } from '../src/core/viewer/protocol';
import { clear, h } from './dom';
import { pathOf, type FNode, type FrameTable, type Strings } from './tree';

/** A swatch and name for each category present in the drawn frames or in the profile's summary. */
export function renderLegend(
  el: HTMLElement,
  s: Strings,
  info: ProfileInfo | undefined,
  colors: Record<string, string>,
  frames: FrameTable,
): void {
  clear(el);
  el.append(h('span', { class: 'dim' }, `${s.legend}:`));
  const present = frames.categories();
  for (const c of CATEGORIES) {
    if (!present.has(c) && !(info && info.categories[c] > 0)) continue;
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = colors[c];
    el.append(h('span', { class: 'item' }, sw, s[`cat.${c}`]));
  }
}

/**
 * The path from the root to the zoomed frame, each step a button that zooms back to it. One tab stop (the current
 * step), the arrows move between the steps: a deep zoom is not dozens of Tab presses.
 */
export function renderCrumbs(el: HTMLElement, n: FNode, zoomTo: (x: FNode) => void): void {
  clear(el);
  el.onkeydown = (e) => {
    const steps = [...el.querySelectorAll<HTMLElement>('button.crumb')];
    const to =
      steps[steps.indexOf(document.activeElement as HTMLElement) + (e.key === 'ArrowLeft' ? -1 : e.key === 'ArrowRight' ? 1 : NaN)];
    if (!to) return;
    e.preventDefault();
    e.stopPropagation();
    to.focus();
  };
  pathOf(n).forEach((x, i, all) => {
    if (i) el.append(h('span', { class: 'sep codicon codicon-chevron-right' }));
    const b = h('button', { class: 'crumb', attrs: { type: 'button', tabindex: i === all.length - 1 ? '0' : '-1' } }, x.name);
    if (i === all.length - 1) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', () => zoomTo(x));
    el.append(b);
  });
}

/** A panel opened for a run still going: Stop ends the run from here too (the profile then opens in place). */
export function stopRunButton(label: string, stop: () => void): HTMLElement {
  const b = document.createElement('vscode-button');
  b.setAttribute('icon', 'debug-stop');
  b.className = 'stop-run';
  b.textContent = label;
  b.addEventListener('click', () => {
    b.setAttribute('disabled', '');
    stop();
  });
  return b;
}
