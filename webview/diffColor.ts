import { h } from './dom';

/** A change of this share (after − before) or more gets the full growth/shrink colour. */
export const FULL_DELTA = 0.15;
/** Below this a change is noise: the neutral colour. */
export const NOISE_DELTA = 0.002;

/**
 * How strongly a node is tinted, -1 (all shrink colour) … 1 (all growth colour). Small but real
 * changes still get a visible tint; the rest of the range is linear up to FULL_DELTA.
 */
export function deltaTint(delta: number): number {
  const a = Math.abs(delta);
  if (!(a >= NOISE_DELTA)) return 0;
  const m = 0.2 + 0.8 * Math.min(1, (a - NOISE_DELTA) / (FULL_DELTA - NOISE_DELTA));
  return delta > 0 ? m : -m;
}

export type Rgb = [number, number, number];

/** `rgb(…)`/`rgba(…)` or `color(srgb …)` (what getComputedStyle gives for color-mix) as 0..255 channels. */
export function parseRgb(css: string): Rgb | undefined {
  let m = /rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(css);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  m = /color\(srgb\s+([\d.e-]+)\s+([\d.e-]+)\s+([\d.e-]+)/.exec(css);
  if (m) return [Number(m[1]) * 255, Number(m[2]) * 255, Number(m[3]) * 255];
  return undefined;
}

export function mixRgb(from: Rgb, to: Rgb, t: number): string {
  const c = (i: number) => Math.round(from[i] + (to[i] - from[i]) * t);
  return `rgb(${c(0)}, ${c(1)}, ${c(2)})`;
}

/** The theme's colours for growth, shrinkage, no change, a search match and merged small frames. */
export interface DiffPalette {
  deltaColor(delta: number): string;
  match(): string;
  small(): string;
  /** Reads the colours again (after a theme switch). */
  read(): void;
}

/** Resolves the theme colours through hidden swatches (the page's CSS variables decide them). */
export function diffPalette(): DiffPalette {
  const swatches = h(
    'div',
    { class: 'palette', attrs: { 'aria-hidden': 'true' } },
    ...['diff-up', 'diff-down', 'diff-same', 'cat-match', 'cat-small'].map((cls) => h('span', { class: cls })),
  );
  document.body.append(swatches);
  let up: Rgb, down: Rgb, same: Rgb, match: string, small: string;
  const read = () => {
    const css = Array.from(swatches.children).map((el) => getComputedStyle(el).backgroundColor);
    up = parseRgb(css[0]) ?? [214, 69, 65];
    down = parseRgb(css[1]) ?? [55, 121, 224];
    same = parseRgb(css[2]) ?? [128, 128, 128];
    [, , , match, small] = css;
  };
  read();
  return {
    deltaColor(delta) {
      const t = deltaTint(delta);
      return mixRgb(same, t >= 0 ? up : down, Math.abs(t));
    },
    match: () => match,
    small: () => small,
    read,
  };
}
