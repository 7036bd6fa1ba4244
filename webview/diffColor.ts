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
