import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { isEpochMs, type Profile } from '../../core/model';
import type { TimeFacts, TimeMarker, TimeTrack } from '../../core/viewer/protocol';
import { loopFileName } from '../preload/loopDelay';
import { profilePid } from './processRecords';
import { readRunJson, type OpenedRun, type RunInfo } from './runFolder';
import { runFolderOf } from './runsDir';

/** A loop file larger than this is not a run's (10 readings a second for hours stay far under it). */
const MAX_LOOP_FILE = 64 * 1024 * 1024;

/** The run folder a profile file (or the folder itself) belongs to (runFolderOf), with its run.json. */
async function runOf(path: string): Promise<{ dir: string; run: Partial<RunInfo> } | undefined> {
  const dir = runFolderOf(path);
  const run = dir !== undefined ? await readRunJson(dir) : undefined;
  return dir !== undefined && run ? { dir, run } : undefined;
}

/** One process's `loop-<pid>.jsonl`: its time origin (epoch ms) and readings. */
export async function readLoopFile(
  file: string,
): Promise<{ timeOrigin?: number; at: number[]; delay: number[]; heap: number[] } | undefined> {
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile() || st.size > MAX_LOOP_FILE) return undefined;
  const out = { timeOrigin: undefined as number | undefined, at: [] as number[], delay: [] as number[], heap: [] as number[] };
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // the last line of a process killed mid-write
    }
    if (Array.isArray(v) && v.length >= 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      out.at.push(v[0]);
      out.delay.push(v[1]);
      out.heap.push(v[2]);
    } else if (v && typeof v === 'object' && typeof (v as { timeOrigin?: unknown }).timeOrigin === 'number')
      out.timeOrigin = (v as { timeOrigin: number }).timeOrigin;
  }
  return out;
}

/**
 * What the run folder knows about time for the Timeline of one of its profiles: the launch's markers and the
 * process's event-loop delay and heap tracks, in ms from the process's start (where its profile starts), or
 * from `axis.startEpochMs` when the profile says when its 0 is (a run's processes on one axis: then the tracks
 * of each of `axis.pids`).
 */
export async function runTimeFacts(
  path: string,
  axis: { startEpochMs?: number; pids?: number[] } = {},
  opened?: OpenedRun,
): Promise<TimeFacts | undefined> {
  // The run the profile was opened with, read then; a path alone (an older caller, a test) is looked up.
  const found = opened ? { dir: opened.dir, run: opened.info } : await runOf(path);
  if (!found) return undefined;
  const { dir, run } = found;
  const pid = profilePid(basename(path)) ?? run.nodePid ?? run.pid;
  const loop = pid !== undefined ? await readLoopFile(join(dir, loopFileName(pid))) : undefined;
  const proc = run.processes?.find((p) => p.pid === pid);
  const origin = axis.startEpochMs ?? loop?.timeOrigin ?? Date.parse(proc?.startedAt ?? run.startedAt ?? '');
  if (!Number.isFinite(origin)) return undefined;
  const at = (iso: string | undefined) => Math.max(0, Date.parse(iso ?? '') - origin);
  const markers: TimeMarker[] = [];
  const label: Record<string, string> = {
    start: l10n.t('app start'),
    port: l10n.t('port {0} open', String(run.port ?? '')),
    loadStart: l10n.t('load start'),
    loadEnd: l10n.t('load end'),
    stop: l10n.t('Stop'),
  };
  if (run.startedAt) markers.push({ kind: 'start', at: at(run.startedAt), label: label.start });
  for (const e of run.events ?? []) {
    const t = at(e.at);
    if (Number.isFinite(t)) markers.push({ kind: e.kind, at: t, label: e.kind === 'mark' ? e.label || l10n.t('mark') : label[e.kind] });
  }
  for (const started of restartsOf(run.processes ?? [])) markers.push({ kind: 'restart', at: at(started), label: l10n.t('restart') });
  // Every process's delay and heap: which of them the Timeline draws follows the picker (core/viewer/answer).
  const tracks: TimeTrack[] = [];
  const pids = axis.startEpochMs !== undefined && axis.pids?.length ? axis.pids : [pid];
  for (const p of pids) {
    const l = p === pid ? loop : p !== undefined ? await readLoopFile(join(dir, loopFileName(p))) : undefined;
    if (!l?.at.length) continue;
    const times = l.at.map((t) => t - origin);
    tracks.push({ kind: 'loopDelay', pid: p, times, values: l.delay }, { kind: 'heapUsed', pid: p, times, values: l.heap });
  }
  return { markers, tracks };
}

/**
 * When a watch-mode restart (nodemon, `node --watch`, `tsx watch`) started a new incarnation of the app: the same
 * command again, once the one before it had ended. Each starts a new section of the Timeline.
 */
export function restartsOf(processes: readonly { command: string[]; startedAt?: string; endedAt?: string }[]): string[] {
  const out: string[] = [];
  const sorted = [...processes].filter((p) => p.startedAt).sort((a, b) => a.startedAt!.localeCompare(b.startedAt!));
  for (const [i, p] of sorted.entries()) {
    const key = p.command.join('\u0000');
    if (sorted.slice(0, i).some((q) => q.command.join('\u0000') === key && q.endedAt && q.endedAt <= p.startedAt!)) out.push(p.startedAt!);
  }
  return out;
}

/** The run facts of a whole profile read from `path`, on its axis: what the Timeline's host and the HTML export carry. */
export function runTimeFactsOf(profile: Profile, path: string, run?: OpenedRun): Promise<TimeFacts | undefined> {
  // A profile that knows the wall-clock time of its 0 (a run's processes merged, a marked tick log) gets markers and
  // the tracks of each of its processes on that axis.
  const startEpochMs = isEpochMs(profile.meta.startTime) ? profile.meta.startTime : undefined;
  const pids = [...new Set(profile.threads.map((t) => t.pid).filter((p): p is number => p !== undefined))];
  return runTimeFacts(path, { startEpochMs, pids }, run).catch(() => undefined);
}
