import type { Profile } from '../model';
import { eachThreadsSamples, type GroupSamples } from '../model/processes';
import { blockingCalls } from './blocking';
import { batchHotCalls } from './batch';
import { FindingContext, IDLE_GAP_MS } from './context';
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
    const processes = byProcess(profile);
    // A run's processes each answer for themselves: the server's blocking call is not diluted by a build step
    // beside it, and one idle process does not make a busy run "mostly idle". Shares are of that process's samples.
    out = (processes ?? [{ pid: undefined, profile, samples: undefined }])
      .filter(({ pid, profile: p }) => pid === undefined || !notNode(p))
      .flatMap(({ pid, profile: p, samples }) => {
        const cx = new FindingContext(p, samples);
        return RULES.flatMap((rule) => rule(cx)).map((f) => (pid === undefined ? f : { ...f, pid }));
      })
      .sort((a, b) => Number(b.severity === 'warning') - Number(a.severity === 'warning') || b.share - a.share);
  }
  cache.set(profile, out);
  return out;
}

/** Frames only a process running V8 has: JavaScript, V8's builtins and its GC. */
const V8_CATEGORIES: ReadonlySet<string> = new Set(['app', 'dependency', 'node', 'eval', 'wasm', 'v8', 'gc']);

/**
 * A process perf recorded that is not Node (tsx's esbuild, a shell step of a build): none of its samples ran V8. The
 * node binary's C++ does not tell: a child Node spawns runs some (closing its descriptors) before its exec. The rules
 * are about Node (the event loop, V8, its load): on such a process they misread it, e.g. "the app was idle, the load
 * did not reach it" of esbuild's service waiting for tsx. Every other mode records only Node processes.
 */
export function notNode(p: Profile): boolean {
  if (p.format !== 'perf' && p.meta.mode !== 'perf') return false;
  const t = p.tree;
  // 1: a V8 frame is on the stack; 2: under uv_spawn. A child forked by Node, sampled before its exec, has its parent's
  // stack down to uv_spawn: such samples do not make a shell Node (1 sample in ~90 did, one run in five).
  const mark = new Uint8Array(t.count);
  for (let n = 1; n < t.count; n++) {
    const f = p.frames[t.frame[n]];
    const up = t.parent[n] > 0 ? mark[t.parent[n]] : 0;
    mark[n] = up | (V8_CATEGORIES.has(f?.category ?? '') ? 1 : 0) | (f?.name === 'uv_spawn' ? 2 : 0);
    if (mark[n] === 1 && t.self[n] > 0) return false;
  }
  return true;
}

/** One profile per process of a run read as one (each with samples), with its samples over time; undefined for one process. */
function byProcess(profile: Profile): { pid: number; profile: Profile; samples: GroupSamples }[] | undefined {
  const pids = new Map<number, string[]>();
  for (const t of profile.threads) {
    if (t.pid === undefined) return undefined;
    if (t.samples > 0) pids.set(t.pid, [...(pids.get(t.pid) ?? []), t.name]);
  }
  if (pids.size < 2) return undefined;
  const each = eachThreadsSamples(profile, [...pids.values()], IDLE_GAP_MS);
  return [...pids.keys()].map((pid, k) => ({ pid, profile: each[k].profile, samples: each[k] }));
}

/** The `--format json` shape of a finding (README "Findings"): add fields, never rename. */
export interface JsonFinding {
  rule: string;
  severity: string;
  message: string;
  file: string | null;
  line: number | null;
  share: number;
  /** The process it is about, in a run of several (its share is of that process's samples). */
  pid?: number;
}

export function toJsonFinding(f: Finding): JsonFinding {
  return {
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    file: f.file ?? null,
    line: f.line ?? null,
    share: Math.round(f.share * 1e6) / 1e6,
    ...(f.pid !== undefined ? { pid: f.pid } : {}),
  };
}
