import { basename, join } from 'node:path';
import { loadProfile } from '../../core/importers';
import type { ImportOptions } from '../../core/importers';
import type { ThreadLabel } from '../../core/importers/types';
import { labelsThreadOf, threadLabels } from './threadLabels';
import { loadPerfScriptFiles } from '../../core/importers/perf';
import { parseLogName } from '../../core/importers/v8log/siblings';
import * as l10n from '@vscode/l10n';
import { isEpochMs, mergeProfiles, ProfileBuilder, ProfileError, type MergePart, type ProcessMeta, type Profile } from '../../core/model';
import { packTimeline } from '../../core/model/packedTimeline';
import { ReusedArrays } from '../../core/importers/numberList';
import { selectThreads } from '../../core/model/processes';
import { threadsBesides, waitingProcesses } from '../../core/model/waiting';
import { placeOnRunClock } from './runClock';
import { isLaunchMode } from './modes';
import { findRawProfiles, isPerfSliceScript, openRun, type OpenedRun, type RunProcess } from './runFolder';
import { mapsFileName, NOT_PROFILED_NO_INSPECTOR, profilePid } from './processRecords';
import { readRunRequests } from './runRequests';

/**
 * The files to read, one tick log per process: the v8log reader reads a process's isolates' logs together from any
 * one of them (`siblingLogs`, by `parseLogName`'s pid), so reading each of them counted every sample of the process
 * once per isolate.
 */
export function oneLogPerProcess(files: string[]): string[] {
  const read = new Set<number>();
  return files.filter((f) => {
    const pid = parseLogName(f)?.pid;
    if (pid === undefined) return true;
    if (read.has(pid)) return false;
    read.add(pid);
    return true;
  });
}

/** The run's name for each of its threads (threadLabels.ts), a process by its short command. */
export function runThreadLabel(processes: readonly RunProcess[]): ThreadLabel {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  return threadLabels(processes, (pid) => shortCommand(byPid.get(pid)));
}

function shortCommand(p: RunProcess | undefined): string {
  if (!p) return '';
  // node's own path and flags say little; the script and its arguments say which process it is.
  const script = p.command.findIndex((w, i) => i > 0 && !w.startsWith('-') && !p.command[i - 1].match(/^(-r|--require|--import)$/));
  // Except the flags that make node something else than the script's process: `node --test a.test.js` runs the
  // tests in a child whose command is `a.test.js`, and `node --watch app.js` restarts `app.js`.
  const role = p.command.slice(1, script > 0 ? script : undefined).filter((w) => ROLE_FLAGS.has(w));
  // `node --test` with no files: the profiler's own flags (`--prof --logfile=…`) were all the rest said.
  if (script <= 0) return role.length ? ['node', ...role].join(' ') : p.command.map((w, i) => (i === 0 ? basename(w) : w)).join(' ');
  return [...(role.length ? ['node', ...role] : []), basename(p.command[script]), ...p.command.slice(script + 1)].join(' ');
}

const ROLE_FLAGS = new Set(['--test', '--watch']);

/**
 * Every profile of a run folder read as one profile: each process (and worker thread) a level of its
 * own, functions merged across them; `meta.processes` lists the run's processes. `pid` keeps one process.
 */
export interface RunLoadOptions extends ImportOptions {
  /** One process only. */
  pid?: number;
  /** Keep the processes that only waited for their children in the shares (the viewer does, and picks around them). */
  allProcesses?: boolean;
  /** A run read while it is recorded (liveReader.ts): its files and how each is read, in place of run.json's. */
  liveParts?: { files: string[]; pidOf: (name: string) => number | undefined; read: (file: string) => Profile };
  /** A live perf run's recording as read so far (liveReader.ts), in place of reading its files here. */
  perfSlices?: Profile;
}

export async function loadRunProfile(run: OpenedRun | string, opts: RunLoadOptions = {}): Promise<Profile> {
  // Off the extension host (the import worker, the CLI): the full size a run.json may have.
  const runDir = typeof run === 'string' ? run : run.dir;
  const info = (typeof run === 'string' ? openRun(run)?.info : run.info) ?? {};
  const mode = isLaunchMode(info.mode) ? info.mode : undefined;
  const pidOf = opts.liveParts?.pidOf ?? profilePid;
  const files = opts.liveParts
    ? opts.liveParts.files
    : info.profiles?.length
      ? info.profiles.map((p) => join(runDir, p))
      : mode
        ? findRawProfiles(runDir, mode)
        : [];
  // A ProfileError, so the import worker passes it on as the reader's own words (not as a crash).
  if (!files.length && !opts.perfSlices)
    throw new ProfileError(
      l10n.t('The run folder {0} holds no profile: the run may have ended before any process wrote one.', runDir),
      runDir,
    );
  const processes = info.processes ?? [];
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const meta = (pid: number): ProcessMeta => ({
    pid,
    ppid: byPid.get(pid)?.ppid ?? null,
    ...(byPid.get(pid)?.ancestors?.length ? { ancestors: byPid.get(pid)!.ancestors } : {}),
    command: byPid.get(pid) ? shortCommand(byPid.get(pid)) : '',
    startedAt: byPid.get(pid)?.startedAt,
  });
  // Every mode's threads are named alike: a process of several threads (prof's log of each, perf's) here as a run of
  // one file per thread (cpu-prof) is.
  const threadLabel = runThreadLabel(processes);
  let profile: Profile;
  if (mode === 'perf' || files.every((f) => pidOf(basename(f)) === undefined)) {
    // perf.data holds every process already, each thread with its pid.
    const nodePid = info.nodePid;
    profile = opts.perfSlices
      ? opts.perfSlices
      : files.every((f) => isPerfSliceScript(basename(f)))
        ? await loadPerfScriptFiles(files, { ...opts, threadLabel })
        : await loadProfile(files[0], {
            ...opts,
            threadLabel,
            mapsFile: opts.mapsFile ?? (nodePid !== undefined ? join(runDir, mapsFileName(nodePid)) : undefined),
          });
    if (opts.pid !== undefined) profile = keepProcess(profile, opts.pid);
  } else {
    const readable = oneLogPerProcess(files);
    const chosen = readable.filter((f) => opts.pid === undefined || pidOf(basename(f)) === opts.pid);
    const parts = await readParts(chosen, opts, pidOf, threadLabel);
    if (!parts.length)
      throw new ProfileError(l10n.t('The run folder {0} holds no profile of process {1}.', runDir, String(opts.pid)), runDir);
    const origin = await placeOnRunClock(runDir, info, parts);
    if (parts.length > 1)
      profile = mergeProfiles(
        parts,
        { ...parts[0].profile.meta, durationMs: Math.max(...parts.map((p) => p.profile.meta.durationMs ?? 0)) },
        { originMs: origin },
      );
    else {
      profile = parts[0].profile;
      const start = parts[0].startMs;
      // One process of several (`--pid`): on the run's axis, so its times are those of the whole run's Timeline.
      if (chosen.length < readable.length && origin !== undefined && start !== undefined) {
        shiftTimeline(profile, start - origin);
        profile.meta.startTime = origin;
      } else if (isEpochMs(start)) profile.meta.startTime = start;
    }
    for (const part of parts)
      if (parts.length === 1 && part.pid !== undefined) profile.threads = profile.threads.map((t) => ({ ...t, pid: part.pid }));
  }
  const seen = new Set(profile.threads.map((t) => t.pid).filter((p): p is number => p !== undefined));
  const listed = processes.filter((p) => opts.pid === undefined || p.pid === opts.pid).map((p) => meta(p.pid));
  for (const pid of seen)
    if (!byPid.has(pid)) listed.push({ pid, ppid: null, command: profile.threads.find((t) => t.pid === pid)?.name ?? '' });
  profile.meta.processes = listed;
  if (mode && mode !== 'perf') warnLostProfiles(profile, listed, files, pidOf, (pid) => byPid.get(pid)?.notProfiled);
  if (opts.pid === undefined) profile = leaveOutWaiting(profile, !opts.allProcesses);
  if (mode) profile.meta.mode ??= mode;
  // run.json's line wins over a perf header's (perf's own argv): the same line, but with node as the run named it where
  // the launcher ran it by its path (a plain run's shim, launch/command.ts).
  if (info.command) profile.meta.command = info.command.join(' ');
  if (info.nodeVersion) profile.meta.nodeVersion = info.nodeVersion;
  profile.meta.source = runDir;
  const requests = await readRunRequests(runDir, profile, info);
  if (requests) profile.requests = requests;
  return profile;
}

/**
 * The run's processes read one after another, each timeline packed as soon as it is read. A function of its own so
 * that what the reading used (the lent arrays, the last process's unpacked timeline) is let go before the merge.
 */
async function readParts(
  chosen: string[],
  opts: RunLoadOptions,
  pidOf: (name: string) => number | undefined,
  threadLabel: ThreadLabel,
): Promise<MergePart[]> {
  const parts: MergePart[] = [];
  // The processes are read one after another: each one's samples and times fill the memory the one before let go.
  const lent = chosen.length > 1 ? new ReusedArrays() : undefined;
  for (const [i, f] of chosen.entries()) {
    const pid = pidOf(basename(f));
    const tid = (/\.(\d+)\.\d+\.(?:cpu|heap)profile$/.exec(f) ?? /live-(?:heap-)?\d+-(\d+)\.(?:jsonl|heapprofile)$/.exec(f))?.[1];
    // Progress over the whole run: each file its share of it.
    const onProgress = opts.onProgress && ((x: number) => opts.onProgress!((i + x) / chosen.length));
    const p = opts.liveParts
      ? opts.liveParts.read(f)
      : await loadProfile(f, { ...opts, onProgress, ...(lent ? { lent, packing: true } : {}), threadLabel });
    const label = pid === undefined ? basename(f) : threadLabel({ pid, threadId: tid === undefined ? 0 : Number(tid) })!;
    // Several parts are merged, and all of them are held until then: each timeline packed as soon as it is read.
    const tl = p.timeline;
    const packed = chosen.length > 1 && tl ? packTimeline(tl, p.tree.count) : undefined;
    if (packed && tl) {
      p.timeline = undefined;
      // Packed, the part no longer reads its timeline's arrays (unless they are kept as they are): lent again.
      // A .cpuprofile's timeline arrays are its own (the reader's lists); the last one's are not lent again.
      const own = lent && !opts.liveParts && p.format === 'cpuprofile' && i < chosen.length - 1;
      if (own && packed.nodes !== tl.nodes) lent.give(tl.nodes.buffer);
      if (own && packed.steps) lent.give(tl.times.buffer);
    }
    // A log of a process and its workers names its threads as the run does (threadLabel): each a level of its own.
    parts.push({
      profile: p,
      thread: label,
      pid,
      tid: tid === undefined ? undefined : Number(tid),
      ...(packed ? { packed } : {}),
      ...(pid !== undefined && p.threads.length > 1 && p.threads.every((t) => labelsThreadOf(t.name, pid)) ? { ownLevels: true } : {}),
    });
  }
  return parts;
}

/**
 * A process the run recorded but whose profile is missing: listed with no samples, it would read as an
 * idle process. It ended before writing (SIGKILL, a crash, a native abort), and the run lacks its work.
 */
function warnLostProfiles(
  profile: Profile,
  listed: ProcessMeta[],
  files: string[],
  pidOf: (name: string) => number | undefined,
  notProfiled: (pid: number) => string | undefined,
): void {
  const written = new Set(files.map((f) => pidOf(basename(f))));
  for (const p of listed) {
    if (written.has(p.pid)) continue;
    const [pid, command] = [String(p.pid), p.command || '?'];
    profile.warnings.push(
      notProfiled(p.pid) === NOT_PROFILED_NO_INSPECTOR
        ? l10n.t(
            'process {0} ({1}) ran without the inspector (Node starts the runner process of node --test so), which cpu-prof and heap modes profile through; its work is missing from this run. prof and perf modes profile it',
            pid,
            command,
          )
        : l10n.t(
            'process {0} ({1}) left no profile (killed before it could write one, or run without the profiler); its work is missing from this run',
            pid,
            command,
          ),
    );
  }
}

/**
 * Marks the processes that only waited for their children (npm, npx, nodemon) and, with `leaveOut`, keeps them
 * out of the shares: their idle would otherwise be most of a run's samples and say nothing about the app.
 */
function leaveOutWaiting(profile: Profile, leaveOut: boolean): Profile {
  const waiting = waitingProcesses(profile);
  if (!waiting.length) return profile;
  const listed = profile.meta.processes ?? [];
  for (const w of waiting) {
    const m = listed.find((p) => p.pid === w.pid);
    if (m) m.waited = { samples: w.samples, idle: Math.round(w.idle * 1000) / 1000 };
  }
  if (!leaveOut) return profile;
  const kept = selectThreads(
    profile,
    threadsBesides(
      profile,
      waiting.map((w) => w.pid),
    ),
  );
  const names = waiting.map(
    (w) => `${listed.find((p) => p.pid === w.pid)?.command || 'pid'} (pid ${w.pid}, ${(w.idle * 100).toFixed(0)}%)`,
  );
  return {
    ...kept,
    warnings: [
      ...kept.warnings,
      l10n.t(
        'left out of the shares: {0} only waited for the processes it started (idle share in brackets); --all-processes keeps them',
        names.join(', '),
      ),
    ],
  };
}

/** Moves a profile's samples `offsetMs` later on its time axis (one process put on its run's axis). */
function shiftTimeline(profile: Profile, offsetMs: number): void {
  const tl = profile.timeline;
  if (!tl || !(offsetMs > 0)) return;
  profile.timeline = { ...tl, times: tl.times.map((t) => t + offsetMs) };
  profile.meta.durationMs = (profile.meta.durationMs ?? tl.times[tl.times.length - 1]) + offsetMs;
}

/** The part of a multi-process profile (perf.data) whose threads belong to `pid`, its samples' times kept. */
function keepProcess(profile: Profile, pid: number): Profile {
  const mine = profile.threads.filter((t) => t.pid === pid);
  if (profile.threads.length <= 1) return profile;
  // perf's timeline covers every process on one clock already: the picker's choice keeps it.
  if (mine.length)
    return selectThreads(
      profile,
      mine.map((t) => t.name),
    );
  // No thread of that process: nothing of the profile is its.
  return new ProfileBuilder(profile.format, { ...profile.meta }).build();
}
