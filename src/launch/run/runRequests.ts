import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readNamedText } from '../../core/namedFiles';
import { isEpochMs, type Profile } from '../../core/model';
import { shareThreadCpu, type RequestLog, type RequestRecord } from '../../core/model/requests';
import type { RunInfo } from './runFolder';

/** A requests file past this is not read (about 20 minutes of a busy server). */
const MAX_REQUESTS_FILE = 512 * 1024 * 1024;

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * The HTTP requests the preload recorded in a run folder (`requests-<pid>.jsonl`, see preload/requests.ts), put on
 * the profile's time axis: its samples' times are ms from `meta.startTime` (epoch ms), and each file's header
 * pairs its `performance.now()` with the wall clock and the monotonic clock. A perf run's samples are on the monotonic
 * clock (`-k mono`), from `meta.perfStartMs`. Undefined when the run recorded none, or the profile's 0 is on neither
 * clock. Only the processes the profile holds are read.
 */
export async function readRunRequests(dir: string, profile: Profile, run: Partial<RunInfo> = {}): Promise<RequestLog | undefined> {
  const perfStart = run.mode === 'perf' && Number.isFinite(profile.meta.perfStartMs) ? profile.meta.perfStartMs : undefined;
  const origin = perfStart ?? profile.meta.startTime;
  if ((perfStart === undefined && !isEpochMs(origin)) || origin === undefined || !profile.timeline) return undefined;
  const pids = new Set(profile.threads.map((t) => t.pid).filter((p): p is number => p !== undefined));
  const names = await readdir(dir).catch(() => [] as string[]);
  // A .cpuprofile's samples are on the monotonic clock, put on the wall clock with the run's first clock pair
  // (runClock.ts): the same pair for the requests, and an error in taking it (a thread descheduled) cancels out.
  const pair = (run.processes ?? []).map((p) => p.clock).find((c) => c && finite(c.epochMs) && finite(c.monoMs));
  const monoPair = profile.format === 'cpuprofile' ? pair : undefined;
  const log: RequestLog = { requests: [], changes: [] };
  for (const name of names) {
    const pid = Number(/^requests-(\d+)\.jsonl$/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || (pids.size && !pids.has(pid))) continue;
    const text = await readNamedText(join(dir, name), { maxBytes: MAX_REQUESTS_FILE }).catch(() => undefined);
    if (text) readFile(text, pid, origin, log, monoPair, perfStart !== undefined);
  }
  if (!log.requests.length) return undefined;
  shareThreadCpu({ ...profile, requests: log });
  return log;
}

function readFile(
  text: string,
  pid: number,
  origin: number,
  log: RequestLog,
  monoPair?: { epochMs: number; monoMs: number },
  monoOrigin = false,
): void {
  let shift: number | undefined;
  const index = new Map<number, number>();
  const times: number[] = [];
  const ids: number[] = [];
  const cpuAt: number[] = [];
  const cpuMs: number[] = [];
  for (const line of text.split('\n')) {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // the last line of a process killed mid-write
    }
    if (!Array.isArray(v)) {
      const c = (v as { clock?: { epochMs?: unknown; monoMs?: unknown; nowMs?: unknown } } | null)?.clock;
      if (c && monoOrigin && finite(c.monoMs) && finite(c.nowMs)) shift = c.monoMs - c.nowMs - origin;
      else if (c && monoPair && finite(c.monoMs) && finite(c.nowMs))
        shift = monoPair.epochMs + (c.monoMs - c.nowMs - monoPair.monoMs) - origin;
      else if (c && finite(c.epochMs) && finite(c.nowMs)) shift = c.epochMs - c.nowMs - origin;
      continue;
    }
    if (shift === undefined) continue;
    if (v[0] === 'q' && v.length >= 7) {
      const [, id, method, route, status, start, end, aborted] = v as unknown[];
      if (!finite(id) || typeof method !== 'string' || typeof route !== 'string' || !finite(start) || !finite(end)) continue;
      const r: RequestRecord = { pid, method, route, status: finite(status) ? status : 0, start: start + shift, end: end + shift };
      if (aborted === 1) r.aborted = true;
      index.set(id, log.requests.length);
      log.requests.push(r);
    } else if (v[0] === 's')
      for (let i = 1; i + 1 < v.length; i += 2) {
        const [t, id] = [v[i], v[i + 1]];
        if (!finite(t) || !finite(id)) continue;
        times.push(t + shift);
        ids.push(id);
      }
    else if (v[0] === 'c')
      for (let i = 1; i + 1 < v.length; i += 2) {
        const [t, ms] = [v[i], v[i + 1]];
        // A clock only goes forward: a reading out of order is damage.
        if (!finite(t) || !finite(ms) || (cpuMs.length && (ms < cpuMs[cpuMs.length - 1] || t + shift <= cpuAt[cpuAt.length - 1]))) continue;
        cpuAt.push(t + shift);
        cpuMs.push(ms);
      }
  }
  if (cpuAt.length > 1) (log.cpu ??= []).push({ pid, times: Float64Array.from(cpuAt), ms: Float64Array.from(cpuMs) });
  if (!times.length) return;
  // A request still open when the process ended has no record: its samples are of no request.
  const order = times.map((_, i) => i).sort((a, b) => times[a] - times[b] || a - b);
  log.changes.push({
    pid,
    times: Float64Array.from(order, (i) => times[i]),
    req: Int32Array.from(order, (i) => (ids[i] ? (index.get(ids[i]) ?? -1) : -1)),
  });
}
