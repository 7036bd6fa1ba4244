import type { Profile } from './profile';
import { rangeLineHits, threadsIn, treeOfSelf } from './timeline';
import { NO_REQUEST, routeKey } from './requestRoutes';
import { threadOfLevel } from './threadLevel';

/** One HTTP request a process of a run served; times in ms on the profile's time axis (as its samples'). */
export interface RequestRecord {
  pid: number;
  method: string;
  route: string;
  /** 0 when the client aborted it. */
  status: number;
  start: number;
  /** When its response ended, or when the client aborted it (its connection closed first). */
  end: number;
  /** The client went away before the response ended (a timeout, a cancelled fetch): `end` is when it did. */
  aborted?: boolean;
}

/**
 * The HTTP requests of a run (the preload's `requests-<pid>.jsonl`) and, per process, when each one's code ran:
 * from `times[i]` on, request `req[i]` (an index in `requests`; -1: none) until the next change.
 */
export interface RequestLog {
  requests: RequestRecord[];
  changes: { pid: number; times: Float64Array; req: Int32Array }[];
  /**
   * Per process (Linux), its main thread's time on a CPU: `ms[i]` in all at `times[i]`. Samples are wall-clock
   * ticks, which a loaded machine stretches while it runs something else: each stretch's CPU time is shared among
   * its samples instead.
   */
  cpu?: ThreadCpu[];
}

/** One process's CPU readings; `rate[i]`: CPU ms per unit of busy sample weight from `times[i]` to `times[i + 1]`. */
export interface ThreadCpu {
  pid: number;
  times: Float64Array;
  ms: Float64Array;
  /** Set by `shareThreadCpu` on the whole profile (NaN: a stretch not wholly in it, or without a busy sample). */
  rate?: Float64Array;
}

/** A sample a request's CPU counts: one of a request's ("(idle)" included: see requestsSummary), or not idle. */
const busy = (label: number, idle: number) => label >= 0 || !idle;

/**
 * Shares each stretch's CPU time among its busy samples, on the whole profile before any cut to a time range or
 * routes (whose samples are a part of each stretch's).
 */
export function shareThreadCpu(profile: Profile): void {
  const log = profile.requests;
  const tl = profile.timeline;
  if (!log?.cpu?.length || !tl?.times.length) return;
  const labels = sampleRequests(profile);
  const idle = idleNodes(profile);
  const pids = nodePids(profile);
  const [first, last] = [tl.times[0], tl.times[tl.times.length - 1]];
  for (const c of log.cpu) {
    const weight = new Float64Array(c.times.length);
    let j = -1;
    for (let i = 0; i < tl.times.length; i++) {
      if (pids[tl.nodes[i]] !== c.pid || !busy(labels[i], idle[tl.nodes[i]])) continue;
      while (j + 1 < c.times.length && c.times[j + 1] <= tl.times[i]) j++;
      if (j >= 0) weight[j] += tl.weights ? tl.weights[i] : 1;
    }
    const whole = (k: number) => k + 1 < c.times.length && c.times[k] >= first && c.times[k + 1] <= last;
    c.rate = Float64Array.from(weight, (w, k) => (whole(k) && w > 0 ? (c.ms[k + 1] - c.ms[k]) / w : NaN));
  }
}

/**
 * Per tree node: the pid of the process (thread level) it is under; -1 when not known, and for a thread other than a
 * process's main one (perf's GC helpers and thread pool: requests run their code on the main thread, and those
 * threads' samples taken meanwhile are not the request's).
 */
function nodePids(profile: Profile): Int32Array {
  const t = profile.tree;
  const out = new Int32Array(t.count).fill(-1);
  if (profile.threads.length <= 1) return out.fill(profile.threads[0]?.pid ?? profile.requests?.changes[0]?.pid ?? -1);
  const byFrame = new Map<number, number>();
  for (const th of profile.threads) {
    const f = profile.frames.findIndex((x) => threadOfLevel(x) === th.name);
    if (f >= 0 && th.pid !== undefined && (th.tid === undefined || th.tid === th.pid)) byFrame.set(f, th.pid);
  }
  // Parents come before their children in the tree's arrays.
  for (let i = 1; i < t.count; i++) out[i] = t.parent[i] === 0 ? (byFrame.get(t.frame[i]) ?? -1) : out[t.parent[i]];
  return out;
}

/** Per timeline sample: the index in `profile.requests.requests` of the request whose code it caught, -1 for none. */
export function sampleRequests(profile: Profile): Int32Array {
  const tl = profile.timeline;
  const log = profile.requests;
  const out = new Int32Array(tl?.times.length ?? 0).fill(-1);
  if (!tl || !log) return out;
  const pids = nodePids(profile);
  const cursors = new Map(log.changes.map((c) => [c.pid, { c, at: -1 }]));
  for (let i = 0; i < tl.times.length; i++) {
    const cur = cursors.get(pids[tl.nodes[i]]);
    if (!cur) continue;
    const { times, req } = cur.c;
    const t = tl.times[i];
    // Samples are in time order: each process's cursor only moves forward.
    while (cur.at + 1 < times.length && times[cur.at + 1] <= t) cur.at++;
    if (cur.at >= 0) out[i] = req[cur.at];
  }
  return out;
}

/** A route's figures: requests, latency percentiles (ms), its samples, CPU ms per request and share of all samples. */
export interface RouteStats {
  /** `GET /auth`, or NO_REQUEST. */
  key: string;
  /** Every request of the route, the aborted ones included. */
  count: number;
  /**
   * Those the client aborted. They count as requests everywhere (their code ran: CPU per request divides by them too)
   * and in the latency percentiles with their time until the abort, as an APM counts a cancelled span, so the slow
   * requests clients gave up on are not left out of p99 (a lower bound on their latency).
   */
  aborted: number;
  p50: number;
  p95: number;
  p99: number;
  samples: number;
  cpuMs: number;
  cpuMsPerRequest: number;
  share: number;
}

export interface RequestsSummary {
  /** Every request's latency percentiles (ms), as a load tool sees them. */
  all: { count: number; p50: number; p90: number; p95: number; p99: number };
  routes: RouteStats[];
  /** The slowest requests, slowest first. */
  slowest: (RequestRecord & { key: string; ms: number })[];
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Per route (heaviest first, the samples of no request last), from the profile's requests and labelled samples. */
export function requestsSummary(profile: Profile, slowest = 20): RequestsSummary | undefined {
  const log = profile.requests;
  // The log first: a merged run's timeline is merged when first read (pendingTimeline.ts), and most have no requests.
  if (!log) return undefined;
  const tl = profile.timeline;
  if (!tl) return undefined;
  const labels = sampleRequests(profile);
  const keyOf = log.requests.map((r) => routeKey(r.method, r.route));
  const idle = idleNodes(profile);
  const samples = new Map<string, { all: number; cpu: number }>();
  const msPerWeight = sampleMs(profile);
  const cpuMsOf = cpuPerSample(profile, msPerWeight);
  let total = 0;
  for (let i = 0; i < labels.length; i++) {
    const w = tl.weights ? tl.weights[i] : 1;
    const key = labels[i] >= 0 ? keyOf[labels[i]] : NO_REQUEST;
    let s = samples.get(key);
    if (!s) samples.set(key, (s = { all: 0, cpu: 0 }));
    s.all += w;
    // V8 marks the isolate idle from libuv's prepare to its check phase, the I/O callbacks between included: a
    // sample of a request's callback (the async hooks bracket it) can read "(idle)" and is the request's time still.
    if (busy(labels[i], idle[tl.nodes[i]])) s.cpu += w * cpuMsOf(i);
    total += w;
  }
  const latencies = new Map<string, number[]>();
  const aborted = new Map<string, number>();
  // A time range keeps the requests that started in it.
  const range = profile.meta.range;
  const inRange = (r: RequestRecord) => !range || (r.start >= range.from && r.start < range.to);
  const all: number[] = [];
  log.requests.forEach((r, i) => {
    if (!inRange(r)) return;
    all.push(r.end - r.start);
    const l = latencies.get(keyOf[i]) ?? [];
    l.push(r.end - r.start);
    latencies.set(keyOf[i], l);
    if (r.aborted) aborted.set(keyOf[i], (aborted.get(keyOf[i]) ?? 0) + 1);
  });
  const keys = new Set([...latencies.keys(), ...samples.keys()]);
  const routes = [...keys].map((key): RouteStats => {
    const l = (latencies.get(key) ?? []).sort((a, b) => a - b);
    const s = samples.get(key) ?? { all: 0, cpu: 0 };
    const cpuMs = s.cpu;
    return {
      key,
      count: l.length,
      aborted: aborted.get(key) ?? 0,
      p50: round(percentile(l, 50)),
      p95: round(percentile(l, 95)),
      p99: round(percentile(l, 99)),
      samples: s.all,
      cpuMs: round(cpuMs),
      cpuMsPerRequest: l.length ? round(cpuMs / l.length) : 0,
      share: total ? s.all / total : 0,
    };
  });
  routes.sort((a, b) => Number(a.key === NO_REQUEST) - Number(b.key === NO_REQUEST) || b.samples - a.samples || b.count - a.count);
  // With a route filter, the slowest of those routes.
  const chosen = profile.meta.routes && new Set(profile.meta.routes);
  const slow = log.requests
    .map((r, i) => ({ ...r, key: keyOf[i], ms: round(r.end - r.start) }))
    .filter((r) => inRange(r) && (!chosen || chosen.has(r.key)))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, slowest);
  all.sort((a, b) => a - b);
  const [p50, p90, p95, p99] = [50, 90, 95, 99].map((p) => round(percentile(all, p)));
  return { all: { count: all.length, p50, p90, p95, p99 }, routes, slowest: slow };
}

/** Milliseconds one unit of timeline weight stands for (the sampling interval; perf: its period's share). */
function sampleMs(profile: Profile): number {
  const tl = profile.timeline!;
  const n = tl.times.length;
  if (!tl.weights && profile.meta.intervalMs) return profile.meta.intervalMs;
  const weight = tl.weights ? tl.weights.reduce((a, b) => a + b, 0) : n;
  const span = n > 1 ? tl.times[n - 1] - tl.times[0] : 0;
  return weight > 0 && span > 0 ? span / weight : (profile.meta.intervalMs ?? 1);
}

/**
 * CPU ms per unit of weight of sample i (asked in time order): its stretch's share of the thread's CPU time where the
 * preload read it, else the sampling interval.
 */
function cpuPerSample(profile: Profile, msPerWeight: number): (i: number) => number {
  const cpu = profile.requests?.cpu?.filter((c) => c.rate);
  const tl = profile.timeline!;
  if (!cpu?.length) return () => msPerWeight;
  const pids = nodePids(profile);
  const cursors = new Map(cpu.map((c) => [c.pid, { c, at: -1 }]));
  return (i) => {
    const cur = cursors.get(pids[tl.nodes[i]]);
    if (!cur) return msPerWeight;
    const { times, rate } = cur.c;
    while (cur.at + 1 < times.length && times[cur.at + 1] <= tl.times[i]) cur.at++;
    const r = cur.at >= 0 ? rate![cur.at] : NaN;
    return Number.isFinite(r) ? r : msPerWeight;
  };
}

function idleNodes(profile: Profile): Uint8Array {
  const t = profile.tree;
  const out = new Uint8Array(t.count);
  for (let i = 1; i < t.count; i++) out[i] = profile.frames[t.frame[i]]?.category === 'idle' ? 1 : 0;
  return out;
}

/** The route keys of a profile's requests, the busiest first (NO_REQUEST not among them). */
export function routeKeys(profile: Profile): string[] {
  return (requestsSummary(profile)?.routes ?? []).filter((r) => r.key !== NO_REQUEST).map((r) => r.key);
}

/**
 * The profile restricted to the samples of the chosen routes (keys as `routeKey` makes them; NO_REQUEST for the
 * samples of no request): tree, line heat and timeline follow, as a time range's do. A profile without requests
 * comes back as it is.
 */
export function restrictToRoutes(profile: Profile, keys: readonly string[]): Profile {
  const tl = profile.timeline;
  const log = profile.requests;
  if (!tl || !log || !keys.length) return profile;
  const chosen = new Set(keys);
  const keyOk = log.requests.map((r) => chosen.has(routeKey(r.method, r.route)));
  const none = chosen.has(NO_REQUEST);
  const labels = sampleRequests(profile);
  const kept = (i: number): boolean => (labels[i] >= 0 ? keyOk[labels[i]] : none);
  const nodes = tl.nodes;
  const w = tl.weights;
  const src = profile.tree;
  const self = new Float64Array(src.count);
  // Counted first, then copied into arrays of that size: a server's run can hold millions of samples.
  let n = 0;
  for (let i = 0; i < labels.length; i++)
    if (kept(i)) {
      self[nodes[i]] += w ? w[i] : 1;
      n++;
    }
  const { tree, moved } = treeOfSelf(profile, self);
  const meta = { ...profile.meta, routes: [...keys] };
  if (meta.sampleCount !== undefined && src.weight > 0) meta.sampleCount = Math.round((meta.sampleCount * tree.weight) / src.weight);
  const times = tl.times;
  const outNodes = new Uint32Array(n);
  const outTimes = new Float64Array(n);
  const outWeights = w ? new Float64Array(n) : undefined;
  for (let i = 0, o = 0; i < labels.length; i++)
    if (kept(i)) {
      outNodes[o] = Math.max(0, moved[nodes[i]]);
      outTimes[o] = times[i];
      if (outWeights && w) outWeights[o] = w[i];
      o++;
    }
  return {
    ...profile,
    meta,
    tree,
    threads: threadsIn(profile, tree),
    timeline: { nodes: outNodes, times: outTimes, ...(outWeights ? { weights: outWeights } : {}) },
    lineHits: rangeLineHits(profile, tree),
  };
}
