import * as l10n from '@vscode/l10n';
import { addLineHits } from './processes';
import { ProfileBuilder, type LineHits, type Profile, type ProfileMeta } from './profile';
import { timelineSource, type TimelineSource } from './packedTimeline';
import { MAX_PACKED_US, PACKED_BASE_BELOW, PACKED_BLOCK_BITS, packedTimeline, WIDE_US } from './mergedTimes';
import { canWait, timelineWhenRead, type PendingPart } from './pendingTimeline';
import { threadOfLevel } from './threadLevel';

/** One profile of a run (one process, or one thread of it) and the thread level it gets in the merge. */
export interface MergePart {
  profile: Profile;
  /** Name of its level in the merged tree, e.g. `pid 4242 server.js`. */
  thread: string;
  pid?: number;
  tid?: number;
  /**
   * Where this part's timeline 0 falls on a clock every part shares (ms; the launcher picks the clock, see
   * runClock.ts), so each process's samples land at the time they were taken. Parts without it start at 0.
   */
  startMs?: number;
  /** The part's timeline packed (see packTimeline), held in place of `profile.timeline` until the merge. */
  packed?: TimelineSource;
  /**
   * Its threads are named as the run names them (a prof log of a process and its workers): each becomes a level of
   * the merge beside the other processes', not a level under `thread`.
   */
  ownLevels?: boolean;
}

/** A part's thread levels by the frame that names each (its threads' names), when it has several. */
function levelsOf(p: Profile): Map<number, string> | undefined {
  if (p.threads.length < 2) return undefined;
  const names = new Set(p.threads.map((t) => t.name));
  const out = new Map<number, string>();
  p.frames.forEach((f, i) => {
    const thread = threadOfLevel(f);
    if (thread !== undefined && names.has(thread)) out.set(i, thread);
  });
  return out;
}

/** A part's samples with their times, packed or not. */
export function partTimeline(part: MergePart): TimelineSource | undefined {
  if (part.packed) return part.packed.length ? part.packed : undefined;
  const tl = part.profile.timeline;
  return tl?.times.length ? timelineSource(tl) : undefined;
}

type Timeline = NonNullable<Profile['timeline']>;

export interface MergeOptions {
  /** The merged time axis's 0, on the parts' clock (the earliest part's start when not given or later). */
  originMs?: number;
  /**
   * The parts are the caller's alone (one file's, read for this merge), so the timeline may be merged when first read
   * (pendingTimeline.ts); a run's parts may be a live reader's, which go on changing after the merge.
   */
  timelineMayWait?: boolean;
}

/**
 * Several profiles of one run (the processes of a command, each its own file) as one: each part
 * becomes a thread level under the root, functions are merged by identity across parts, and line
 * hits add up, so views by function, CodeLens and line heat cover every process. The parts' timelines
 * become one, on the merged tree's nodes and one time axis whose 0 is `originMs` (on the parts' clock; the
 * earliest part's start when not given or later), kept as `meta.startTime`. One part alone is put on that axis too.
 */
export function mergeProfiles(parts: MergePart[], meta: ProfileMeta, { originMs, timelineMayWait = false }: MergeOptions = {}): Profile {
  const b = new ProfileBuilder(parts[0]?.profile.format ?? 'cpuprofile', { ...meta });
  // Kept per part too, so the viewer's process picker shows the line heat of the processes it keeps.
  const byThread = new Map<string, LineHits>();
  const timed: { tl: TimelineSource; nodes: Int32Array; startMs?: number; durationMs: number; thread: string }[] = [];
  let lifted = false;
  for (const part of parts) {
    const p = part.profile;
    const ids = p.frames.map((f) => b.frame(f));
    // Where each of the part's nodes went in the merged tree: the timeline's samples follow them.
    const moved = new Int32Array(p.tree.count).fill(-1);
    const levels = part.ownLevels ? levelsOf(p) : undefined;
    p.tree.forEachStack((stack, self, selfTime, node) => {
      const own = levels?.get(stack[0]);
      moved[node] =
        own !== undefined
          ? b.sample(
              stack.slice(1).map((f) => ids[f]),
              self,
              selfTime,
              own,
            )
          : b.sample(
              stack.map((f) => ids[f]),
              self,
              selfTime,
              part.thread,
            );
    });
    const tl = partTimeline(part);
    if (tl) {
      // A sample on a node without self weight (none the importers make) stays in its process, at its level: every node
      // not placed goes there, which is the same for the nodes samples are on and looks at nodes, not at every sample.
      const level = b.sample([], 0, 0, levels ? p.threads[0].name : part.thread);
      for (let n = 0; n < moved.length; n++) if (moved[n] < 0) moved[n] = level;
      timed.push({ tl, nodes: moved, startMs: part.startMs, durationMs: Math.max(tl.last, p.meta.durationMs ?? 0), thread: part.thread });
    }
    if (levels) for (const t of p.threads) b.threadInfo(t.name, { pid: t.pid ?? part.pid, ...(t.tid !== undefined ? { tid: t.tid } : {}) });
    else b.threadInfo(part.thread, { pid: part.pid, tid: part.tid });
    for (const [file, lines] of p.lineHits) for (const [line, h] of lines) b.lineHit(file, line, h.self, h.total);
    // A process's line hits are not kept per thread: its threads' are the files still in their tree (selectThreads).
    if (levels) lifted = true;
    else {
      if (!byThread.has(part.thread)) byThread.set(part.thread, new Map());
      addLineHits(byThread.get(part.thread)!, p.lineHits);
    }
    for (const w of p.warnings) b.warn(w);
  }
  let later: { parts: PendingPart[]; merge: () => Timeline } | undefined;
  if (timed.length) {
    // A part with samples but no times (a tick log of several isolates) is left out of every time range: said once.
    const untimed = parts.filter((p) => !partTimeline(p) && p.profile.tree.weight > 0).map((p) => p.thread);
    if (untimed.length)
      b.warn(l10n.t('{0} recorded no sample times: the Timeline and time ranges leave its samples out', untimed.join(', ')));
    const known = timed.every((t) => Number.isFinite(t.startMs));
    if (!known && timed.length > 1)
      b.warn(l10n.t("the processes' start times are not known: each process's samples are timed from its own first sample"));
    const origin = known ? Math.min(originMs ?? Infinity, ...timed.map((t) => t.startMs!)) : 0;
    const offsets = timed.map((t) => (known ? t.startMs! - origin : 0));
    // Packed when it can be (see mergedTimes.ts); a run of too many gaps of over 71 minutes is merged again, unpacked.
    const merge = (): Timeline => {
      const byNode = offsetsByNode(timed, offsets);
      return (byNode && mergeTimelines(timed, offsets, byNode)) || mergeTimelines(timed, offsets)!;
    };
    const waiting = timed.map((t, j) => ({ tl: t.tl, nodes: t.nodes, thread: t.thread, offset: offsets[j] }));
    // Parts of levels of their own (canWait): the merged profile keeps its levels, so build() would not renumber it.
    if (timelineMayWait && !lifted && canWait(waiting)) later = { parts: waiting, merge };
    else b.timeline = merge();
    if (known) b.meta.startTime = origin;
    b.meta.durationMs = Math.max(b.meta.durationMs ?? 0, ...timed.map((t, i) => offsets[i] + t.durationMs));
  }
  const merged = b.build();
  if (later) timelineWhenRead(merged, later.parts, later.merge);
  if (merged.threads.length > 1 && !lifted) merged.threadLineHits = byThread;
  return merged;
}

/**
 * The parts' samples in time order, each shifted by its offset, on their merged nodes (ties: the earlier part first).
 * A packed part's times are its whole µs summed as they are read: the same `µs / 1000` its reader made, plus its offset.
 * With `byNode` (see offsetsByNode), the merged times are packed (mergedTimes.ts): undefined when a part is not
 * packed, or too many samples are not within four bytes of µs of their block's base.
 */
function mergeTimelines(
  parts: { tl: TimelineSource; nodes: Int32Array }[],
  offsets: number[],
  byNode?: { usOfNode: Float64Array; msOfNode: Float64Array },
): Timeline | undefined {
  const k = parts.length;
  const total = parts.reduce((s, p) => s + p.tl.length, 0);
  if (byNode && !parts.every((p) => p.tl.steps || p.tl.sums)) return undefined;
  const nodes = new Uint32Array(total);
  const usOut = byNode ? new Uint32Array(total) : undefined;
  const blockUs = new Float64Array(byNode ? (total >>> PACKED_BLOCK_BITS) + 1 : 0);
  const times = new Float64Array(byNode ? 0 : total);
  const offUs = new Float64Array(parts.map((_, j) => Math.round(offsets[j] * 1000)));
  let base = 0;
  // A few gaps of hours are held aside; a run that is mostly such gaps keeps its times.
  const wide = new Map<number, number>();
  const maxWide = Math.max(1 << 16, total >>> 8);
  const weighted = parts.some((p) => p.tl.weights);
  const weights = weighted ? new Float64Array(total) : undefined;
  const srcNodes = parts.map((p) => p.tl.nodes);
  const srcTimes = parts.map((p) => p.tl.times ?? new Float64Array(0));
  const srcSteps = parts.map((p) => p.tl.steps);
  const srcSums = parts.map((p) => p.tl.sums);
  if (k === 2 && usOut && byNode && !weighted && srcSums[0] && srcSums[1]) {
    const out = { nodes, us: usOut, blockUs, wide, maxWide };
    return mergeTwoSums(parts[0], parts[1], offsets, offUs, out)
      ? packedTimeline(nodes, { us: usOut, blockUs, ...byNode, wide })
      : undefined;
  }
  const len = new Int32Array(parts.map((p) => p.tl.length));
  const moved = parts.map((p) => p.nodes);
  const at = new Int32Array(k);
  // A packed part's µs so far (its last sample read).
  const us = new Float64Array(parts.map((p) => p.tl.firstUs));
  // Each part's next time on the merged axis; an exhausted part's is Infinity, so it never wins again.
  const next = new Float64Array(k);
  for (let j = 0; j < k; j++) next[j] = len[j] === 0 ? Infinity : (srcSteps[j] || srcSums[j] ? us[j] / 1000 : srcTimes[j][0]) + offsets[j];
  // A k-way merge over a tournament of losers (each part's times are in order already): a sample costs log2(k)
  // comparisons up one path, where a heap's sift-down costs two per level; 35 M samples of 20 processes pass here.
  const loser = new Int32Array(Math.max(1, k));
  const win = new Int32Array(2 * k);
  for (let j = 0; j < k; j++) win[k + j] = j;
  for (let node = k - 1; node >= 1; node--) {
    const a = win[2 * node];
    const b = win[2 * node + 1];
    const aFirst = next[a] < next[b] || (next[a] === next[b] && a < b);
    win[node] = aFirst ? a : b;
    loser[node] = aFirst ? b : a;
  }
  let best = k > 1 ? win[1] : 0;
  for (let o = 0; o < total; o++) {
    const i = at[best]++;
    nodes[o] = moved[best][srcNodes[best][i]];
    if (usOut) {
      const v = us[best] + offUs[best];
      if ((o & BLOCK_MASK) === 0) base = blockUs[o >>> PACKED_BLOCK_BITS] = v - PACKED_BASE_BELOW;
      const d = v - base;
      if (d >= 0 && d <= MAX_PACKED_US) usOut[o] = d;
      else if (holdWide(wide, o, v, maxWide)) usOut[o] = WIDE_US;
      else return undefined;
    } else times[o] = next[best];
    if (weights) weights[o] = parts[best].tl.weights?.[i] ?? 1;
    if (i + 1 >= len[best]) next[best] = Infinity;
    else {
      const steps = srcSteps[best];
      const sums = srcSums[best];
      if (steps) next[best] = (us[best] += steps[i + 1]) / 1000 + offsets[best];
      else if (sums) next[best] = (us[best] = sumAt(sums, i + 1)) / 1000 + offsets[best];
      else next[best] = srcTimes[best][i + 1] + offsets[best];
    }
    // Replay its path: at each match the stored loser plays the part coming up, the earlier of them goes on.
    let w = best;
    let tw = next[w];
    for (let node = (w + k) >> 1; node > 0; node >>= 1) {
      const l = loser[node];
      const tl = next[l];
      if (tl < tw || (tl === tw && l < w)) {
        loser[node] = w;
        w = l;
        tw = tl;
      }
    }
    best = w;
  }
  if (usOut && byNode) return packedTimeline(nodes, { us: usOut, blockUs, ...byNode, wide }, weights);
  return weights ? { nodes, times, weights } : { nodes, times };
}

const BLOCK_MASK = (1 << PACKED_BLOCK_BITS) - 1;

/**
 * mergeTimelines's packed loop for two parts that both hold packed sums (a trace's two processes): the same times in
 * the same order (the earlier first, the first part on a tie), each part's state in locals rather than in arrays by
 * part and a tournament of one match. False when too many samples are held wide.
 */
function mergeTwoSums(
  a: { tl: TimelineSource; nodes: Int32Array },
  b: { tl: TimelineSource; nodes: Int32Array },
  offsets: number[],
  offUs: Float64Array,
  out: { nodes: Uint32Array; us: Uint32Array; blockUs: Float64Array; wide: Map<number, number>; maxWide: number },
): boolean {
  const sa = a.tl.sums!;
  const sb = b.tl.sums!;
  const srcA = a.tl.nodes;
  const srcB = b.tl.nodes;
  const movedA = a.nodes;
  const movedB = b.nodes;
  const na = a.tl.length;
  const nb = b.tl.length;
  const offA = offsets[0];
  const offB = offsets[1];
  const offUsA = offUs[0];
  const offUsB = offUs[1];
  const { nodes, us, blockUs, wide, maxWide } = out;
  let ia = 0;
  let ib = 0;
  let usA = a.tl.firstUs;
  let usB = b.tl.firstUs;
  let nextA = na === 0 ? Infinity : usA / 1000 + offA;
  let nextB = nb === 0 ? Infinity : usB / 1000 + offB;
  let base = 0;
  const total = na + nb;
  for (let o = 0; o < total; o++) {
    let v: number;
    if (nextB < nextA) {
      nodes[o] = movedB[srcB[ib]];
      v = usB + offUsB;
      if (++ib >= nb) nextB = Infinity;
      else nextB = (usB = sumAt(sb, ib)) / 1000 + offB;
    } else {
      nodes[o] = movedA[srcA[ia]];
      v = usA + offUsA;
      if (++ia >= na) nextA = Infinity;
      else nextA = (usA = sumAt(sa, ia)) / 1000 + offA;
    }
    if ((o & BLOCK_MASK) === 0) base = blockUs[o >>> PACKED_BLOCK_BITS] = v - PACKED_BASE_BELOW;
    const d = v - base;
    if (d >= 0 && d <= MAX_PACKED_US) us[o] = d;
    else if (holdWide(wide, o, v, maxWide)) us[o] = WIDE_US;
    else return false;
  }
  return true;
}

/** Sample `i`'s µs of packed sums (see TimelineSource.sums). */
function sumAt(p: NonNullable<TimelineSource['sums']>, i: number): number {
  const d = p.us[i];
  return d === WIDE_US ? p.wide.get(i)! : p.blockUs[i >>> PACKED_BLOCK_BITS] + d;
}

/** Holds a sample's µs aside (see PackedTimes.wide), unless `max` are already. */
function holdWide(wide: Map<number, number>, o: number, us: number, max: number): boolean {
  if (wide.size >= max) return false;
  wide.set(o, us);
  return true;
}

/**
 * The offset (ms, and whole µs) of each merged node's part, or undefined when two parts that are shifted differently
 * share a node (parts of one thread name) or an offset is not a finite number.
 */
function offsetsByNode(parts: { nodes: Int32Array }[], offsets: number[]): { usOfNode: Float64Array; msOfNode: Float64Array } | undefined {
  if (!offsets.every((o) => Number.isFinite(o) && Math.abs(o) < 2 ** 40)) return undefined;
  let size = 0;
  for (const p of parts) for (let n = 0; n < p.nodes.length; n++) size = Math.max(size, p.nodes[n] + 1);
  const msOfNode = new Float64Array(size);
  const usOfNode = new Float64Array(size);
  const set = new Uint8Array(size);
  for (const [j, p] of parts.entries())
    for (let n = 0; n < p.nodes.length; n++) {
      const node = p.nodes[n];
      if (!set[node]) {
        set[node] = 1;
        msOfNode[node] = offsets[j];
        usOfNode[node] = Math.round(offsets[j] * 1000);
      } else if (!Object.is(msOfNode[node], offsets[j])) return undefined;
    }
  return { usOfNode, msOfNode };
}
