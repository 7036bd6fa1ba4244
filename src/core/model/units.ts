/**
 * What a profile's weights count. Tick logs, perf and `.cpuprofile` count samples; pprof carries time
 * (shown in ms), bytes or objects. Reports say the unit so a byte count is never read as a tick count.
 */
export type WeightUnit = 'samples' | 'ms' | 'bytes' | 'objects';

/** One value a pprof sample carries: `cpu`/`nanoseconds`, `alloc_space`/`bytes`, … as the file names them. */
export interface SampleType {
  type: string;
  unit: string;
}

/**
 * A weight as people read it: bytes in kB/MB/GB (powers of 1000, as DevTools shows heap sizes), time
 * in ms or s, counts as whole numbers with the unit's word.
 */
export function formatWeight(value: number, unit: WeightUnit = 'samples', locale = 'en'): string {
  const num = (x: number, digits: number) => new Intl.NumberFormat(safeLocale(locale), { maximumFractionDigits: digits }).format(x);
  const a = Math.abs(value);
  switch (unit) {
    case 'bytes':
      if (a >= 1e9) return `${num(value / 1e9, 2)} GB`;
      if (a >= 1e6) return `${num(value / 1e6, 1)} MB`;
      if (a >= 1e3) return `${num(value / 1e3, 1)} kB`;
      return `${num(value, 0)} B`;
    case 'ms':
      return a >= 1000 ? `${num(value / 1000, 2)} s` : `${num(value, 1)} ms`;
    default:
      return num(Math.round(value), 0);
  }
}

function safeLocale(locale: string): string {
  try {
    return Intl.NumberFormat.supportedLocalesOf(locale).length ? locale : 'en';
  } catch {
    return 'en';
  }
}

const TIME: Record<string, number> = {
  nanoseconds: 1e-6,
  ns: 1e-6,
  microseconds: 1e-3,
  us: 1e-3,
  milliseconds: 1,
  ms: 1,
  seconds: 1e3,
  s: 1e3,
};
const BYTES: Record<string, number> = {
  bytes: 1,
  b: 1,
  kilobytes: 1024,
  kb: 1024,
  megabytes: 1024 ** 2,
  mb: 1024 ** 2,
  gigabytes: 1024 ** 3,
  gb: 1024 ** 3,
};

/**
 * The model's unit for a pprof value type and the factor that turns its values into it; `known` is
 * false for a unit no tool agrees on (its values are kept as counts).
 */
export function weightUnitOf(t: SampleType): { unit: WeightUnit; scale: number; known: boolean } {
  const u = t.unit.toLowerCase();
  // Own keys only: a unit named `constructor` is no unit (`in` found Object's methods).
  if (Object.hasOwn(TIME, u)) return { unit: 'ms', scale: TIME[u], known: true };
  if (Object.hasOwn(BYTES, u)) return { unit: 'bytes', scale: BYTES[u], known: true };
  const objects = /object/i.test(t.type);
  if (u === 'count' || u === 'samples' || u === '' || u === 'objects')
    return { unit: objects ? 'objects' : 'samples', scale: 1, known: true };
  return { unit: objects ? 'objects' : 'samples', scale: 1, known: false };
}

/** The pprof unit a weight in `unit` is written in, and the factor from the model's values to it. */
export function pprofUnitOf(unit: WeightUnit): { unit: string; scale: number } {
  switch (unit) {
    case 'ms':
      return { unit: 'nanoseconds', scale: 1e6 };
    case 'bytes':
      return { unit: 'bytes', scale: 1 };
    default:
      return { unit: 'count', scale: 1 };
  }
}
