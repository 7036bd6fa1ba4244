export type RuleId =
  | 'blocking-sync'
  | 'batch-hot-call'
  | 'gc-pressure'
  | 'regexp'
  | 'deopt-loop'
  | 'hot-module-load'
  | 'mostly-idle'
  | 'native-library';
export type Severity = 'info' | 'warning';

/** One thing a profile says is wrong, where, how much it costs, and what to do about it. */
export interface Finding {
  rule: RuleId;
  severity: Severity;
  /** Fraction of all samples the finding is about. */
  share: number;
  /** One sentence of explanation and the next step, localized. */
  message: string;
  /** The user's line that leads to it (the first app frame above the hot one); absent when there is none. */
  file?: string;
  line?: number;
  /** Profile frame to select in the flame graph; -1 when there is none to show. */
  frame: number;
  /** In a run of several processes: the process it is about; `share` is of that process's samples. */
  pid?: number;
}

/** Thresholds, as fractions of all samples unless said otherwise; README "Findings" lists them. */
export const THRESHOLDS = {
  blocking: 0.02,
  blockingWarning: 0.05,
  /** A blocking call seen only once must take this many ms of samples. */
  blockingOnceMs: 250,
  json: 0.05,
  /** CPU-heavy library work (zlib, crypto, JSON) in code that runs before the event loop: a batch job's or CLI's hot path. */
  batch: 0.1,
  batchWarning: 0.3,
  gc: 0.1,
  gcWarning: 0.2,
  regexp: 0.05,
  regexpWarning: 0.1,
  /** Deoptimizations of one function (a count). */
  deopts: 3,
  deoptShare: 0.01,
  deoptWarning: 0.05,
  moduleLoad: 0.02,
  moduleLoadWarning: 0.05,
  idle: 0.75,
  native: 0.1,
  nativeWarning: 0.3,
} as const;

export function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
