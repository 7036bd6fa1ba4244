/**
 * The numeric settings that set a limit or a pace, with the range each is held to wherever it is read. A
 * repository's `.vscode/settings.json` may hold anything: 200000 s turns a watchdog off, 2000000 s overflows
 * setTimeout (a delay above 2^31-1 ms fires at once), a string or NaN is no number at all. package.json
 * declares the same bounds, and lists these settings as restricted in untrusted workspaces.
 */
export const SETTING_LIMITS = {
  importTimeoutSeconds: { min: 5, max: 3600, fallback: 60 },
  waitForPort: { min: 0, max: 65535, fallback: 0 },
  waitForPortTimeout: { min: 1, max: 86400, fallback: 30 },
  stopTimeout: { min: 1, max: 3600, fallback: 10 },
  'perf.frequency': { min: 0, max: 100000, fallback: 0 },
  // 256 KiB: at exit V8 builds the whole profile, ~1.8 KB per node, and the nodes grow with the samples (tsc: ×2.76
  // its own peak RSS at 32 KiB, ×1.36 at 256 KiB).
  heapSamplingInterval: { min: 1, max: 1 << 30, fallback: 262144 },
  'attach.samplingInterval': { min: 50, max: 100000, fallback: 1000 },
  'attach.duration': { min: 0, max: 86400, fallback: 0 },
  'codeLens.threshold': { min: 0, max: 100, fallback: 1 },
} as const;

export type LimitedSetting = keyof typeof SETTING_LIMITS;

/** setTimeout's largest delay; a larger one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A setting's value held to its range; anything but a finite number is its default. */
export function clampSetting(name: LimitedSetting, value: unknown): number {
  const { min, max, fallback } = SETTING_LIMITS[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}
