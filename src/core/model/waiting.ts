import type { ProcessMeta, Profile } from './profile';
import { sampleCount, sampleTime } from './mergedTimes';
import { threadOfLevel } from './threadLevel';

/** A process at or above this idle share that started others only waited for them (npm, npx, nodemon, a shell). */
export const WAITING_IDLE_SHARE = 0.9;

export interface WaitingProcess {
  pid: number;
  /** Its samples, all threads. */
  samples: number;
  /** Idle samples over its samples. */
  idle: number;
}

/**
 * The processes of a run that only waited: each started another process of the run and spent at least
 * `WAITING_IDLE_SHARE` of its samples idle. None when that would leave no process with samples (an idle
 * app is the finding then, not a wrapper).
 */
export function waitingProcesses(profile: Profile): WaitingProcess[] {
  const processes = profile.meta.processes ?? [];
  if (processes.length < 2 || profile.threads.length < 2) return [];
  const { byPid, top, idleAbove, level } = idleSamples(profile);
  const byTime = timeIdleShares(profile, top, idleAbove, level);
  const out: WaitingProcess[] = [];
  let busy = false;
  for (const [pid, s] of byPid) {
    const idle = Math.max(s.samples > 0 ? s.idle / s.samples : 0, byTime.get(pid) ?? 0);
    if (idle >= WAITING_IDLE_SHARE && startedOthers(pid, processes)) out.push({ pid, samples: s.samples, idle });
    else if (s.samples > 0 && idle < WAITING_IDLE_SHARE) busy = true;
  }
  return busy ? out : [];
}

/** Per process (all its threads): its samples and how many of them were idle. */
export function idleByPid(profile: Profile): Map<number, { samples: number; idle: number }> {
  return idleSamples(profile).byPid;
}

function idleSamples(profile: Profile): {
  byPid: Map<number, { samples: number; idle: number }>;
  top: Int32Array;
  idleAbove: Uint8Array;
  level: Map<string, number>;
} {
  const t = profile.tree;
  // Per node: the child of the root it hangs under (its thread's level), and whether an idle frame is at or above it.
  const top = new Int32Array(t.count);
  const idleAbove = new Uint8Array(t.count);
  const idleOf = new Float64Array(t.count);
  for (let n = 1; n < t.count; n++) {
    const p = t.parent[n];
    top[n] = p === 0 ? n : top[p];
    idleAbove[n] = idleAbove[p] | (profile.frames[t.frame[n]]?.category === 'idle' ? 1 : 0);
    if (idleAbove[n]) idleOf[top[n]] += t.self[n];
  }
  // Each thread's level: a child of the root named `thread <name>`.
  const level = new Map<string, number>();
  for (const c of t.children(0)) {
    const f = profile.frames[t.frame[c]];
    const thread = threadOfLevel(f);
    if (thread !== undefined) level.set(thread, c);
  }
  const byPid = new Map<number, { samples: number; idle: number }>();
  for (const th of profile.threads) {
    if (th.pid === undefined) continue;
    const s = byPid.get(th.pid) ?? { samples: 0, idle: 0 };
    const node = level.get(th.name);
    s.samples += th.samples;
    s.idle += node === undefined ? 0 : idleOf[node];
    byPid.set(th.pid, s);
  }
  return { byPid, top, idleAbove, level };
}

/**
 * Per process, the share of its sampled span it was not running: 1 − (its busy samples × the sampling
 * interval) / (its last sample − its first). A --prof sampler ticks a waiting thread only now and then,
 * so sample shares alone make a waiting npm look busy; the time it ran says it waited.
 */
function timeIdleShares(profile: Profile, top: Int32Array, idleAbove: Uint8Array, level: Map<string, number>): Map<number, number> {
  const tl = profile.timeline;
  const interval = profile.meta.intervalMs;
  const out = new Map<number, number>();
  if (!tl || sampleCount(tl) < 2 || !(interval && interval > 0)) return out;
  const pidOfTop = new Map<number, number>();
  for (const th of profile.threads) {
    const node = level.get(th.name);
    if (node !== undefined && th.pid !== undefined) pidOfTop.set(node, th.pid);
  }
  // Per sample only array reads: tens of millions of samples in a big run.
  const pidAt = new Int32Array(profile.tree.count).fill(-1);
  const pids: number[] = [];
  for (let node = 0; node < pidAt.length; node++) {
    const pid = pidOfTop.get(top[node]);
    if (pid === undefined) continue;
    let k = pids.indexOf(pid);
    if (k < 0) k = pids.push(pid) - 1;
    pidAt[node] = k;
  }
  // Each process's first and last sample (indices: the times of those two only are read, packed or not).
  const first = new Float64Array(pids.length);
  const last = new Float64Array(pids.length);
  const busy = new Float64Array(pids.length);
  const seen = new Uint8Array(pids.length);
  spans(tl.nodes, pidAt, idleAbove, first, last, busy, seen);
  for (let k = 0; k < pids.length; k++) {
    if (!seen[k]) continue;
    const [from, to] = [sampleTime(tl, first[k]), sampleTime(tl, last[k])];
    if (to > from) out.set(pids[k], Math.max(0, 1 - (busy[k] * interval) / (to - from)));
  }
  return out;
}

/**
 * Each process's first and last sample (their indices) and busy samples. The pass over tens of millions of samples
 * only counts and notes the last index, by a code per node (process and idle or busy; one more for the samples of no
 * process), with no branch a sample; the first samples are found after it, from the start until each process has one.
 * A small function of its own, optimized within the first few thousand samples (a loop in a bigger one ran interpreted
 * far longer).
 */
function spans(
  nodes: Uint32Array,
  pidAt: Int32Array,
  idleAbove: Uint8Array,
  first: Float64Array,
  last: Float64Array,
  busy: Float64Array,
  seen: Uint8Array,
): void {
  const size = pidAt.length;
  const none = 2 * first.length;
  const code = new Int32Array(size);
  for (let node = 0; node < size; node++) code[node] = pidAt[node] < 0 ? none : 2 * pidAt[node] + (idleAbove[node] ? 1 : 0);
  const count = new Float64Array(none + 1);
  const lastOf = new Float64Array(none + 1);
  countCodes(nodes, code, none, count, lastOf);
  let left = 0;
  for (let k = 0; k < first.length; k++) {
    if (count[2 * k] + count[2 * k + 1] === 0) continue;
    seen[k] = 1;
    left++;
    busy[k] = count[2 * k];
    last[k] = Math.max(count[2 * k] ? lastOf[2 * k] : -1, count[2 * k + 1] ? lastOf[2 * k + 1] : -1);
  }
  const found = new Uint8Array(first.length);
  for (let i = 0; left > 0 && i < nodes.length; i++) {
    const node = nodes[i];
    const c = node < size ? code[node] : none;
    if (c === none || found[c >> 1]) continue;
    found[c >> 1] = 1;
    first[c >> 1] = i;
    left--;
  }
}

function countCodes(nodes: Uint32Array, code: Int32Array, none: number, count: Float64Array, lastOf: Float64Array): void {
  const size = code.length;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const c = node < size ? code[node] : none;
    count[c]++;
    lastOf[c] = i;
  }
}

function startedOthers(pid: number, processes: ProcessMeta[]): boolean {
  return processes.some((p) => p.pid !== pid && (p.ppid === pid || !!p.ancestors?.includes(pid)));
}

/** The thread names of every process but `pids` (and threads of no known process): the picker's default choice. */
export function threadsBesides(profile: Profile, pids: readonly number[]): string[] {
  const skip = new Set(pids);
  return profile.threads.filter((th) => th.pid === undefined || !skip.has(th.pid)).map((th) => th.name);
}
