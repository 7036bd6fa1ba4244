import type { Profile } from '../model';
import { blockingCalls } from './blocking';
import { batchHotCalls } from './batch';
import { FindingContext } from './context';
import { deoptLoops } from './deopt';
import { gcPressure } from './gc';
import { mostlyIdle } from './idle';
import { hotModuleLoads } from './modules';
import { nativeLibraries } from './native';
import { regexpHeavy } from './regexp';
import type { Finding } from './types';

export type { Finding, RuleId, Severity } from './types';
export { THRESHOLDS } from './types';

const RULES: Array<(cx: FindingContext) => Finding[]> = [
  blockingCalls,
  batchHotCalls,
  gcPressure,
  regexpHeavy,
  deoptLoops,
  hotModuleLoads,
  nativeLibraries,
  mostlyIdle,
];

/** The editor's diagnostics and the viewer ask for one profile's findings: work it out once. */
const cache = new WeakMap<Profile, Finding[]>();

/** Every rule's findings for a profile, warnings first, then by share. */
export function findFindings(profile: Profile): Finding[] {
  let out = cache.get(profile);
  if (out) return out;
  out = [];
  // Every rule reads time (blocking calls, GC, idle): on bytes or objects its words would be wrong.
  const time = !profile.meta.unit || profile.meta.unit === 'samples' || profile.meta.unit === 'ms';
  if (profile.tree.weight > 0 && time) {
    const cx = new FindingContext(profile);
    out = RULES.flatMap((rule) => rule(cx)).sort(
      (a, b) => Number(b.severity === 'warning') - Number(a.severity === 'warning') || b.share - a.share,
    );
  }
  cache.set(profile, out);
  return out;
}

/** The `--format json` shape of a finding (README "Findings"): add fields, never rename. */
export interface JsonFinding {
  rule: string;
  severity: string;
  message: string;
  file: string | null;
  line: number | null;
  share: number;
}

export function toJsonFinding(f: Finding): JsonFinding {
  return {
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    file: f.file ?? null,
    line: f.line ?? null,
    share: Math.round(f.share * 1e6) / 1e6,
  };
}
