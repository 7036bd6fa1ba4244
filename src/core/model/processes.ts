import type { LineHits, ProcessMeta, Profile, Thread } from './profile';
import { linesStillThere } from './transforms';
import { idleByPid } from './waiting';
import { packedTimeAt, PACKED_BLOCK_BITS, WIDE_US, wideUs, type PackedTimes } from './mergedTimes';
import { partCut, partGroupGaps, pendingParts, type PendingPart } from './pendingTimeline';
import { threadOfLevel } from './threadLevel';

/**
 * One row of the viewer's process and thread picker, in display order. Choosing a row chooses every thread
 * in `threads` (a process's row holds all its threads); a process that recorded no samples has none.
 */
export interface ProcessRow {
  /** Nesting under its parent process (and a thread under its process). */
  depth: number;
  pid?: number;
  tid?: number;
  /** The process's command, or the thread's name when the row is one thread of several. */
  label: string;
  samples: number;
  threads: string[];
  /** A thread of a process with several (a worker thread, a perf thread). */
  thread?: boolean;
  /** ISO time the process started, when it recorded itself. */
  startedAt?: string;
  /** Its idle share, when it only waited for the processes it started (the picker starts without it). */
  waitedIdle?: number;
  /**
   * Its idle share, when at least `MOSTLY_IDLE` of its samples were idle and it is not one that waited: a sampler that
   * samples every thread on a clock (--cpu-prof) gives a process its share of samples for being alive, busy or not.
   */
  idle?: number;
}

export const MOSTLY_IDLE = 0.5;

/**
 * The picker's rows: processes nested under their parent by pid, children latest first (a watch mode's newest
 * incarnation on top), top-level processes in start order, each process's threads under it when it has several. Empty when the profile has one
 * thread: there is nothing to choose.
 */
export function processRows(profile: Profile): ProcessRow[] {
  if (profile.threads.length < 2) return [];
  const known = new Map<number, ProcessMeta>();
  for (const p of profile.meta.processes ?? []) known.set(p.pid, p);
  const byPid = new Map<number, Thread[]>();
  const loose: Thread[] = [];
  for (const t of profile.threads) {
    if (t.pid === undefined) {
      loose.push(t);
      continue;
    }
    if (!byPid.has(t.pid)) byPid.set(t.pid, []);
    byPid.get(t.pid)!.push(t);
    if (!known.has(t.pid)) known.set(t.pid, { pid: t.pid, ppid: null, command: '' });
  }
  // A process perf saw that did not record itself (the shell npm runs a script in) gets its parent from a
  // child's ancestor chain: the chain's next pid is the parent of the one before it.
  for (const p of [...known.values()]) {
    const chain = [p.ppid, ...(p.ancestors ?? [])];
    for (let i = 0; i + 1 < chain.length; i++) {
      const up = chain[i] === null ? undefined : known.get(chain[i]!);
      if (up && up.ppid === null && !up.ancestors)
        known.set(up.pid, { ...up, ppid: chain[i + 1], ancestors: chain.slice(i + 2) as number[] });
    }
  }
  const kids = new Map<number | null, ProcessMeta[]>();
  for (const p of known.values()) {
    // Through a shell or a non-Node launcher the parent is not one of the run's processes: the nearest ancestor that is.
    const parent = [p.ppid, ...(p.ancestors ?? [])].find((a): a is number => a !== null && a !== p.pid && known.has(a)) ?? null;
    if (!kids.has(parent)) kids.set(parent, []);
    kids.get(parent)!.push(p);
  }
  const idle = idleByPid(profile);
  const latestFirst = (a: ProcessMeta, b: ProcessMeta) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.pid - a.pid;
  const rows: ProcessRow[] = [];
  const seen = new Set<number>();
  // Depth first with a stack of its own: a chain of 5 000 processes (each started by the one before) is
  // deeper than the call stack.
  const walk = (root: ProcessMeta, rootDepth: number) => {
    const todo: [ProcessMeta, number][] = [[root, rootDepth]];
    while (todo.length) {
      const [p, depth] = todo.pop()!;
      visit(p, depth, todo);
    }
  };
  const visit = (p: ProcessMeta, depth: number, todo: [ProcessMeta, number][]) => {
    if (seen.has(p.pid)) return;
    seen.add(p.pid);
    const threads = (byPid.get(p.pid) ?? []).sort(threadOrder(p.pid));
    const samples = threads.reduce((s, t) => s + t.samples, 0);
    const own = idle.get(p.pid);
    const idleShare = own && own.samples > 0 ? own.idle / own.samples : 0;
    rows.push({
      depth,
      pid: p.pid,
      label: p.command || (threads[0]?.name ?? ''),
      samples,
      threads: threads.map((t) => t.name),
      startedAt: p.startedAt,
      ...(p.waited ? { waitedIdle: p.waited.idle } : idleShare >= MOSTLY_IDLE ? { idle: idleShare } : {}),
    });
    if (threads.length > 1)
      for (const t of threads)
        rows.push({ depth: depth + 1, pid: p.pid, tid: t.tid, label: t.name, samples: t.samples, threads: [t.name], thread: true });
    const cs = (kids.get(p.pid) ?? []).sort(latestFirst);
    for (let i = cs.length - 1; i >= 0; i--) todo.push([cs[i], depth + 1]);
  };
  // Top-level processes in the order they started: the command's own first, then those whose parent was no
  // Node process (a CLI that npm ran through sh); under a parent, the newest child first.
  const earliestFirst = (a: ProcessMeta, b: ProcessMeta) => latestFirst(b, a);
  for (const p of (kids.get(null) ?? []).sort(earliestFirst)) walk(p, 0);
  // A parent loop (pid reuse) leaves processes no root reaches: shown at the top level.
  for (const p of [...known.values()].sort(earliestFirst)) walk(p, 0);
  for (const t of loose) rows.push({ depth: 0, tid: t.tid, label: t.name, samples: t.samples, threads: [t.name] });
  return rows;
}

/**
 * A process's threads as they are listed: the main thread first, then the busiest. perf's helper threads (V8's
 * compiler and GC, libuv's pool), started before any worker and so lower in tid, would otherwise stand between the
 * main thread and the workers. Threads without a tid (a prof log's, numbered as read) keep their order.
 */
export function threadOrder(pid: number): (a: Thread, b: Thread) => number {
  const rank = (t: Thread) => (t.tid === undefined ? -1 : t.tid === pid || t.tid === 0 ? 0 : 1);
  return (a, b) => rank(a) - rank(b) || (rank(a) === 1 ? b.samples - a.samples : 0) || (a.tid ?? -1) - (b.tid ?? -1);
}

/**
 * The profile as one or several of its threads (a process is all of its threads): the other threads'
 * levels and samples are dropped, and a single thread's level is folded away as if it were read alone. Line
 * hits are those of the chosen threads when the profile kept them apart (a run folder's processes), else
 * those of files still in the tree. `undefined`, an empty choice or every thread: the profile itself.
 */
export function selectThreads(profile: Profile, names: readonly string[] | undefined): Profile {
  return select(profile, names, false);
}

/** `ownsTimeline`: the profile's timeline is a cut made for this call alone, so its samples are kept in place. */
function select(profile: Profile, names: readonly string[] | undefined, ownsTimeline: boolean): Profile {
  const s = selected(profile, names);
  if (!s) return profile;
  return { ...s.profile, timeline: profile.timeline && samplesKept(profile.timeline, s.moved, ownsTimeline) };
}

/**
 * The chosen threads' profile without its timeline, and where each node of `profile.tree` went (-1: a thread not
 * kept); undefined when the choice keeps the profile as it is.
 */
function selected(profile: Profile, names: readonly string[] | undefined): { profile: Profile; moved: Int32Array } | undefined {
  if (!names || profile.threads.length < 2) return undefined;
  const keep = new Set(names.filter((n) => profile.threads.some((t) => t.name === n)));
  if (keep.size === 0 || keep.size === profile.threads.length) return undefined;
  const levels = new Uint8Array(profile.frames.length);
  profile.frames.forEach((f, i) => {
    const thread = threadOfLevel(f);
    if (thread !== undefined && keep.has(thread)) levels[i] = 1;
  });
  const fold = keep.size === 1;
  const t = profile.tree;
  // The kept threads' nodes: the new tree is made that big, not as big as the whole run's (a process of twenty).
  const under = new Uint8Array(t.count);
  let capacity = 1;
  for (let i = 1; i < t.count; i++) capacity += under[i] = t.parent[i] === 0 ? levels[t.frame[i]] : under[t.parent[i]];
  // Where each node went (-1: a thread not kept), so the samples of the kept threads stay on the Timeline.
  const moved = new Int32Array(t.count).fill(-1);
  const tree = t.rewrite(
    (i, p, out) => {
      if (p < 0) return -1;
      if (t.parent[i] !== 0) return (moved[i] = out.child(p, t.frame[i]));
      if (!levels[t.frame[i]]) return -1;
      return (moved[i] = fold ? p : out.child(p, t.frame[i]));
    },
    { dropRootSelf: true, capacity },
  );
  const threads = profile.threads.filter((th) => keep.has(th.name));
  const meta = { ...profile.meta };
  const before = t.weight;
  if (meta.sampleCount !== undefined && before > 0) meta.sampleCount = Math.round((meta.sampleCount * tree.weight) / before);
  const lineHits = profile.threadLineHits
    ? sumLineHits(threads.map((th) => profile.threadLineHits!.get(th.name)))
    : linesStillThere(profile, tree);
  return { profile: { ...withoutTimeline(profile), meta, tree, threads, lineHits, timeline: undefined, threadLineHits: undefined }, moved };
}

/** `{ ...profile }` with its timeline undefined, not read: a merged run's is merged when first read (pendingTimeline.ts). */
function withoutTimeline(profile: Profile): Profile {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(profile)) out[key] = key === 'timeline' ? undefined : profile[key as keyof Profile];
  return out as unknown as Profile;
}

/** The timeline's samples whose node was kept, on their new nodes; `inPlace` writes them over `tl`'s own arrays. */
function samplesKept(tl: NonNullable<Profile['timeline']>, moved: Int32Array, inPlace = false): Profile['timeline'] {
  // Two passes over typed arrays: a run of tens of millions of samples gets no list of indices.
  const { nodes: from, times: at, weights: w } = tl;
  const n = from.length;
  const size = moved.length;
  let kept = 0;
  for (let i = 0; i < n; i++) if (from[i] < size && moved[from[i]] >= 0) kept++;
  if (!kept) return undefined;
  // Sample k is written at or before where sample i was read: in place, nothing is overwritten before it is read.
  const nodes = inPlace ? from : new Uint32Array(kept);
  const times = inPlace ? at : new Float64Array(kept);
  const weights = w ? (inPlace ? w : new Float64Array(kept)) : undefined;
  for (let i = 0, k = 0; i < n; i++) {
    const m = from[i] < size ? moved[from[i]] : -1;
    if (m < 0) continue;
    nodes[k] = m;
    times[k] = at[i];
    if (weights) weights[k] = w![i];
    k++;
  }
  if (inPlace && kept < n) {
    const cut = { nodes: nodes.subarray(0, kept), times: times.subarray(0, kept) };
    return weights ? { ...cut, weights: weights.subarray(0, kept) } : cut;
  }
  return weights ? { nodes, times, weights } : { nodes, times };
}

/** Adds `from` into `into` (per file, per line). */
export function addLineHits(into: LineHits, from: LineHits): void {
  for (const [file, lines] of from) {
    let m = into.get(file);
    if (!m) into.set(file, (m = new Map()));
    for (const [line, h] of lines) {
      const x = m.get(line);
      if (x) {
        x.self += h.self;
        x.total += h.total;
      } else m.set(line, { self: h.self, total: h.total });
    }
  }
}

function sumLineHits(parts: (LineHits | undefined)[]): LineHits {
  const out: LineHits = new Map();
  for (const p of parts) if (p) addLineHits(out, p);
  return out;
}

/** The gaps longer than `gapMs` between one sample and the next, summed, and the span from the first to the last (ms). */
export interface TimeGaps {
  gaps: number;
  span: number;
}

/** `TimeGaps` of a timeline's times; undefined under two samples. */
export function timeGaps(times: ArrayLike<number>, gapMs: number): TimeGaps | undefined {
  if (times.length < 2) return undefined;
  let gaps = 0;
  for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] > gapMs) gaps += times[i] - times[i - 1];
  return { gaps, span: times[times.length - 1] - times[0] };
}

/** timeGaps of a timeline's times, packed ones (mergedTimes.ts) read where they are: the same numbers, not unpacked. */
export function timelineGaps(tl: NonNullable<Profile['timeline']>, gapMs: number): TimeGaps | undefined {
  const p = tl.packed;
  if (!p) return timeGaps(tl.times, gapMs);
  const nodes = tl.nodes;
  if (nodes.length < 2) return undefined;
  const first = packedTimeAt(p, nodes, 0);
  let prev = first;
  let gaps = 0;
  for (let i = 1; i < nodes.length; i++) {
    const t = packedTimeAt(p, nodes, i);
    if (t - prev > gapMs) gaps += t - prev;
    prev = t;
  }
  return { gaps, span: prev - first };
}

/** A thread group's profile and what its samples say over time, as the findings read them. */
export interface GroupSamples {
  /** As `selectThreads` gives it, without its timeline when it is a part of a bigger one (`nodes` reads its samples). */
  profile: Profile;
  /** Its samples' gaps over `gapMs` (see eachThreadsSamples); undefined under two samples. */
  gaps: TimeGaps | undefined;
  /** Its samples' nodes in its own tree, in time order, or undefined without a timeline: one pass over the timeline. */
  nodes(): ArrayLike<number> | undefined;
}

/**
 * Each thread group's profile (the processes of a run, for their own findings) and its samples over time from one
 * pass over the whole timeline: its gaps longer than `gapMs`, and its samples' nodes only when asked for. The cuts of
 * a whole run at once would be a second timeline the size of the first, tens of millions of samples in a big run.
 */
export function eachThreadsSamples(profile: Profile, groups: readonly (readonly string[])[], gapMs: number): GroupSamples[] {
  const parts = pendingParts(profile);
  const alone = (g: readonly string[]): GroupSamples => {
    const p = selectThreads(profile, g);
    return { profile: p, gaps: p.timeline && timelineGaps(p.timeline, gapMs), nodes: () => p.timeline?.nodes };
  };
  // A group of every thread is the profile itself, root samples and all.
  const whole = (g: readonly string[]) => profile.threads.every((th) => g.includes(th.name));
  if ((!parts && !profile.timeline) || groups.length < 2) return groups.map(alone);
  const t = profile.tree;
  const size = t.count;
  const chosen = groups.map((g) => (whole(g) ? undefined : selected(profile, g)));
  // Each node's place in its group's tree, and its group; children have higher ids than parents.
  const groupOf = new Map<string, number>();
  groups.forEach((g, k) => g.forEach((name) => groupOf.set(name, k)));
  const group = new Int32Array(size).fill(-1);
  const movedTo = new Int32Array(size).fill(-1);
  for (let n = 1; n < size; n++) {
    if (t.parent[n] !== 0) group[n] = group[t.parent[n]];
    else {
      const f = profile.frames[t.frame[n]];
      const thread = threadOfLevel(f);
      if (thread !== undefined) group[n] = groupOf.get(thread) ?? -1;
    }
    const c = group[n] >= 0 ? chosen[group[n]] : undefined;
    if (c) movedTo[n] = c.moved[n];
  }
  const k = groups.length;
  const count = new Float64Array(k);
  const gaps = new Float64Array(k);
  const first = new Float64Array(k);
  const last = new Float64Array(k);
  let cut: (g: number) => Uint32Array;
  // A merge not made yet is not made for this: each group's samples are its one part's (see pendingTimeline.ts).
  const along = parts && !chosen.includes(undefined) ? alongParts(parts, groupOf, k, movedTo, group, gapMs) : undefined;
  if (along) {
    along.forEach((r, j) => ([count[j], gaps[j], first[j], last[j]] = [r.count, r.gaps, r.first, r.last]));
    cut = (g) => partCut(along[g].part!, movedTo, group, g, count[g]);
  } else {
    const tl = profile.timeline!;
    const src = tl.nodes;
    const n = src.length;
    const packed = tl.packed;
    if (packed) packedGroupGaps(src, packed, movedTo, group, gapMs, count, gaps, first, last);
    else groupGaps(src, tl.times, movedTo, group, gapMs, count, gaps, first, last);
    cut = (g: number): Uint32Array => {
      const out = new Uint32Array(count[g]);
      for (let i = 0, o = 0; i < n; i++) {
        const node = src[i];
        if (node < size && group[node] === g && movedTo[node] >= 0) out[o++] = movedTo[node];
      }
      return out;
    };
  }
  return groups.map((g, j) => {
    const c = chosen[j];
    if (!c) return alone(g);
    const some = count[j] > 0;
    return {
      profile: c.profile,
      gaps: count[j] > 1 ? { gaps: gaps[j], span: last[j] - first[j] } : undefined,
      nodes: () => (some ? cut(j) : undefined),
    };
  });
}

/**
 * groupGaps of each group from its one part of a merge not made yet; undefined when a group has several parts (their
 * samples interleave) or a part's sample is in another group.
 */
function alongParts(
  parts: readonly PendingPart[],
  groupOf: Map<string, number>,
  k: number,
  movedTo: Int32Array,
  group: Int32Array,
  gapMs: number,
): { part?: PendingPart; count: number; gaps: number; first: number; last: number }[] | undefined {
  const partOf: (PendingPart | undefined)[] = new Array(k).fill(undefined);
  for (const p of parts) {
    const g = groupOf.get(p.thread);
    if (g === undefined) continue;
    if (partOf[g]) return undefined;
    partOf[g] = p;
  }
  const out: { part?: PendingPart; count: number; gaps: number; first: number; last: number }[] = [];
  for (let g = 0; g < k; g++) {
    const p = partOf[g];
    const r = p ? partGroupGaps(p, movedTo, group, g, gapMs) : { count: 0, gaps: 0, first: 0, last: 0 };
    if (!r) return undefined;
    out.push({ part: p, ...r });
  }
  return out;
}

/** Each group's samples, gaps over `gapMs`, first and last time, in one pass over the timeline (a small function: see waiting.ts's spans). */
function groupGaps(
  src: Uint32Array,
  times: Float64Array,
  movedTo: Int32Array,
  group: Int32Array,
  gapMs: number,
  count: Float64Array,
  gaps: Float64Array,
  first: Float64Array,
  last: Float64Array,
): void {
  const size = movedTo.length;
  for (let i = 0; i < src.length; i++) {
    const node = src[i];
    if (node >= size || movedTo[node] < 0) continue;
    const g = group[node];
    const at = times[i];
    if (count[g]++ === 0) first[g] = at;
    else if (at - last[g] > gapMs) gaps[g] += at - last[g];
    last[g] = at;
  }
}

/**
 * groupGaps over a merged run's packed times (mergedTimes.ts), the same sums: a step is compared on the run's axis in
 * whole µs first (within a µs of the times' own step, for the rounding of each process's offset), and only a step
 * that may be a gap has its two times read to be compared and added as groupGaps does.
 */
function packedGroupGaps(
  src: Uint32Array,
  packed: PackedTimes,
  movedTo: Int32Array,
  group: Int32Array,
  gapMs: number,
  count: Float64Array,
  gaps: Float64Array,
  first: Float64Array,
  last: Float64Array,
): void {
  const size = movedTo.length;
  const { us, blockUs, wide } = packed;
  const lastUs = new Float64Array(count.length);
  const maybe = gapMs * 1000 - 2;
  // `first` and `last` hold sample indices until the end.
  for (let i = 0; i < src.length; i++) {
    const node = src[i];
    if (node >= size || movedTo[node] < 0) continue;
    const g = group[node];
    const d = us[i];
    const v = d === WIDE_US ? wideUs(wide, i) : blockUs[i >>> PACKED_BLOCK_BITS] + d;
    if (count[g]++ === 0) first[g] = i;
    else if (v - lastUs[g] > maybe) addGap(packed, src, last[g], i, gapMs, gaps, g);
    last[g] = i;
    lastUs[g] = v;
  }
  for (let g = 0; g < count.length; g++)
    if (count[g]) [first[g], last[g]] = [packedTimeAt(packed, src, first[g]), packedTimeAt(packed, src, last[g])];
}

function addGap(packed: PackedTimes, src: Uint32Array, from: number, to: number, gapMs: number, gaps: Float64Array, g: number): void {
  const [before, at] = [packedTimeAt(packed, src, from), packedTimeAt(packed, src, to)];
  if (at - before > gapMs) gaps[g] += at - before;
}
