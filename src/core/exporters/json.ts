import { timeSpan } from '../model/timeline';
import { requestsSummary, type RequestsSummary } from '../model/requests';
import { threadOrder } from '../model/processes';
import { findFindings, toJsonFinding, type JsonFinding } from '../findings';
import {
  attributed,
  categoryWeights,
  CATEGORIES,
  functionRows,
  type Category,
  type LabelInfo,
  type Profile,
  type ProfileFormat,
  type SampleType,
  type WeightUnit,
} from '../model';
import { isThreadLevel } from '../model/threadLevel';

/** The documented, stable `--format json` shape (see README "CLI"); add fields, never rename. */
export interface JsonReport {
  format: ProfileFormat;
  /** A launched run's HTTP requests by route (count, latency percentiles, CPU ms per request, share) and the slowest. */
  requests?: RequestsSummary & { routeFilter?: string[] };
  samples: number;
  durationMs: number | null;
  /** The span the report covers, in ms from the profile's first sample (`--from`/`--to` narrow it); null without times. */
  startTime: number | null;
  endTime: number | null;
  attributed: number;
  categories: Record<Category, number>;
  functions: JsonFunction[];
  /**
   * How many functions the profile has, of which `functions` keeps the `--top` heaviest by self time: a function absent
   * from a cut list may still be on most stacks (all its time in its callees, it has self 0 and sorts last).
   */
  functionCount: number;
  /** What `functions` is ordered and cut by (`--sort`): `self` (the default) or `total`, each with the other breaking ties. */
  functionsSortedBy: FunctionSort;
  /** What the profile says is wrong, warnings first (README "Findings"). */
  findings: JsonFinding[];
  /** What `samples` counts (pprof: the chosen sample type's unit, time in ms). */
  unit: WeightUnit;
  /**
   * The CPU time the samples stand for, in ms, where the profile weighs samples by time (perf's cpu-clock and
   * task-clock periods); absent otherwise. `samples` stays a count of samples in every mode.
   */
  sampleTimeMs?: number;
  /** perf: the sum of the samples' periods, and its unit (`ns` for cpu-clock/task-clock, `events` for other events). */
  periodTotal?: number;
  periodUnit?: 'ns' | 'events';
  /** pprof: the sample type the shares are of, every type the file has, and its labels. */
  sampleType?: string;
  sampleTypes?: SampleType[];
  labels?: LabelInfo[];
  /** The processes of a run folder read as one; absent for a single profile file. */
  processes?: JsonProcess[];
}

export interface JsonProcess {
  pid: number;
  ppid: number | null;
  /** The parent's parent and up, when the process recorded them: links a process started through a shell. */
  ancestors?: number[];
  command: string;
  /** Samples taken in this process (perf: counted, not weighted by period). */
  samples: number;
  /** Present when it only waited for the processes it started (npm, nodemon): its idle share; left out of the shares unless `--all-processes`. */
  waited?: { idle: number };
  /** Present when it ran several threads: each by the name every mode gives it, main thread first, then the busiest. */
  threads?: { name: string; samples: number }[];
}

export interface JsonFunction {
  name: string;
  file: string | null;
  line: number | null;
  column: number | null;
  category: Category;
  /** Native and shared-library code: the binary it is in (two `malloc@plt` in two libraries are two functions). */
  lib?: string;
  self: number;
  total: number;
}

/** The weight `functions` is ordered and cut by: its own samples, or every sample it is on the stack of. */
export type FunctionSort = 'self' | 'total';

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function toJsonReport(profile: Profile, opts: { top?: number; sort?: FunctionSort } = {}): JsonReport {
  const all = profile.tree.weight;
  const share = (x: number) => (all > 0 ? round(x / all) : 0);
  const weights = categoryWeights(profile);
  const by = opts.sort ?? 'self';
  const categories = Object.fromEntries(CATEGORIES.map((c) => [c, share(weights[c])])) as Record<Category, number>;
  const stats = functionRows(profile)
    .map((s, order) => ({ ...s, order }))
    .filter((s) => !isThreadLevel(s.frame))
    .sort(
      by === 'total'
        ? (a, b) => b.total - a.total || b.self - a.self || a.order - b.order
        : (a, b) => b.self - a.self || b.total - a.total || a.order - b.order,
    );
  const top = opts.top ?? 50;
  const functions = stats.slice(0, Math.max(0, top)).map((s): JsonFunction => {
    const f = s.frame;
    return {
      name: f.name,
      file: f.file || null,
      line: f.line > 0 ? f.line : null,
      column: f.column > 0 ? f.column : null,
      category: f.category,
      ...(f.lib && !f.file ? { lib: f.lib } : {}),
      self: share(s.self),
      total: share(s.total),
    };
  });
  return {
    format: profile.format,
    samples: round(all * sampleScale(profile)),
    durationMs: profile.meta.durationMs === null ? null : round(profile.meta.durationMs),
    attributed: round(attributed(profile)),
    categories,
    functions,
    functionCount: stats.length,
    functionsSortedBy: by,
    findings: findFindings(profile).map(toJsonFinding),
    unit: profile.meta.unit ?? 'samples',
    ...periodFields(profile),
    ...(profile.meta.sampleType !== undefined ? { sampleType: profile.meta.sampleType } : {}),
    ...(profile.meta.sampleTypes ? { sampleTypes: profile.meta.sampleTypes } : {}),
    ...(profile.meta.labels ? { labels: profile.meta.labels } : {}),
    ...(profile.meta.processes ? { processes: jsonProcesses(profile) } : {}),
    ...coveredSpan(profile),
    ...jsonRequests(profile),
  };
}

function jsonRequests(profile: Profile): Pick<JsonReport, 'requests'> {
  const r = requestsSummary(profile);
  if (!r) return {};
  return { requests: { ...r, ...(profile.meta.routes ? { routeFilter: profile.meta.routes } : {}) } };
}

/**
 * Weight → samples: perf weighs each sample by its period (ns of cpu-clock), while `sampleCount` counts samples
 * and follows every cut and transform; 1 where the weights already are samples.
 */
export function sampleScale(profile: Profile): number {
  const all = profile.tree.weight;
  return profile.meta.sampleCount !== undefined && all > 0 ? profile.meta.sampleCount / all : 1;
}

/** The period-weighted totals a perf profile has besides its sample count. */
function periodFields(profile: Profile): Pick<JsonReport, 'sampleTimeMs' | 'periodTotal' | 'periodUnit'> {
  if (profile.format !== 'perf' || profile.meta.sampleCount === undefined) return {};
  const all = profile.tree.weight;
  const timeMs = profile.tree.count > 0 ? profile.tree.totalTime[0] : 0;
  return {
    ...(timeMs > 0 ? { sampleTimeMs: round(timeMs) } : {}),
    periodTotal: round(all),
    periodUnit: timeMs > 0 ? 'ns' : 'events',
  };
}

/** What `startTime`/`endTime` say: the range a profile was cut to, else 0 to the end of its last sample (or its duration). */
function coveredSpan(profile: Profile): { startTime: number | null; endTime: number | null } {
  const r = profile.meta.range;
  if (r) return { startTime: round(r.from), endTime: round(r.to) };
  const d = timeSpan(profile)?.end ?? profile.meta.durationMs;
  return d === null ? { startTime: null, endTime: null } : { startTime: 0, endTime: round(d) };
}

/** Sample weight per process of a run read as one (see ProfileMeta.processes), from its threads' pids. */
export function processWeights(profile: Profile): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const t of profile.threads) if (t.pid !== undefined) byPid.set(t.pid, (byPid.get(t.pid) ?? 0) + t.samples);
  return byPid;
}

function jsonProcesses(profile: Profile): JsonProcess[] {
  const byPid = processWeights(profile);
  const scale = sampleScale(profile);
  return (profile.meta.processes ?? []).map((p) => {
    const threads = profile.threads.filter((t) => t.pid === p.pid).sort(threadOrder(p.pid));
    return {
      pid: p.pid,
      ppid: p.ppid,
      ...(p.ancestors?.length ? { ancestors: p.ancestors } : {}),
      command: p.command,
      samples: round((byPid.get(p.pid) || p.waited?.samples || 0) * scale),
      ...(p.waited ? { waited: { idle: p.waited.idle } } : {}),
      ...(threads.length > 1 ? { threads: threads.map((t) => ({ name: t.name, samples: round(t.samples * scale) })) } : {}),
    };
  });
}
