// Weights in the profile's unit: a heap profile's bytes read as "12.4 MB", not as a sample count.
import { formatWeight, type WeightUnit } from '../src/core/viewer/protocol';
import { fmt } from './dom';
import type { Strings } from './tree';

/** How the views scale a weight: its share of `total`, and its figure in the profile's unit. */
export interface Weights {
  total: number;
  unit?: WeightUnit;
}

/** "1,234 samples", "12.4 MB", "35.2 ms", "1,234 objects". */
export function weightText(n: number, s: Strings, unit: WeightUnit = 'samples'): string {
  if (unit === 'bytes' || unit === 'ms') return formatWeight(n, unit, document.documentElement.lang || navigator.language);
  return fmt(unit === 'objects' ? s.objects : s.samples, Math.round(n));
}

/** As weightText, but a sample count stays a bare number where the column says what it counts. */
export function weightNumber(n: number, s: Strings, unit: WeightUnit = 'samples'): string {
  return unit === 'samples' ? String(Math.round(n)) : weightText(n, s, unit);
}
