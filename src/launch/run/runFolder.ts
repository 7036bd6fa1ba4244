import { mkdirSync, readdirSync, rmdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { MAX_RUN_JSON_BYTES, NamedFileError, readNamedText, readNamedTextSync } from '../../core/namedFiles';
import { basename, isAbsolute, join } from 'node:path';
import { createNewFileSync, replaceFile } from '../../core/safeWrite';
import type { LaunchMode } from './modes';
import type { ProcessClock, ThreadRecord } from './processRecords';
import { RUNS_DIR } from './runsDir';
import { LIVE_HEAP_NAME } from './liveHeapFile';

export { RUNS_DIR } from './runsDir';

/** What a run folder holds: a launch in one of the modes, or an attach to a running process. */
export type RunMode = LaunchMode | 'attach';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `<YYYYMMDD-HHMMSS>-<mode>` in local time: sorts by time and says what ran. */
export function runFolderName(mode: RunMode, when: Date = new Date()): string {
  const d = `${when.getFullYear()}${pad(when.getMonth() + 1)}${pad(when.getDate())}`;
  const t = `${pad(when.getHours())}${pad(when.getMinutes())}${pad(when.getSeconds())}`;
  return `${d}-${t}-${mode}`;
}

/** Creates a fresh run folder under `base` (two runs in one second get `-2`, `-3`, … up to 99). */
export function createRunDir(base: string, mode: RunMode, when: Date = new Date()): string {
  mkdirSync(base, { recursive: true });
  // Profiles are large and machine-specific: keep a fresh .nodeflame/ out of git unless the user decides otherwise.
  // Created only where nothing is (a symlink a repository ships there is left alone, not written through).
  if (basename(base) === RUNS_DIR)
    try {
      createNewFileSync(join(base, '.gitignore'), '*\n');
    } catch {
      // there already, or a read-only folder: the run goes on
    }
  const name = runFolderName(mode, when);
  for (let i = 1; ; i++) {
    const dir = join(base, i === 1 ? name : `${name}-${i}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i > 99) throw e;
    }
  }
}

export interface LoadSummary {
  command: string;
  exitCode: number | null;
  durationMs: number;
  /** e.g. autocannon's "1k requests in 10.05s, 2.3 MB read". */
  requests?: number;
  lastLines: string[];
}

/** The version `run.json` files are written with; fields are only ever added, so readers accept 1. */
export const RUN_JSON_VERSION = 1;

/** What an attach adds: where the profile came from. */
export interface AttachTargetInfo {
  address: string;
  title?: string;
  url?: string;
  pid?: number;
}

/** One Node process of a run (see processRecords.ts). */
export interface RunProcess {
  pid: number;
  ppid: number;
  /** The parent's parent and up, when the process recorded them (Linux). */
  ancestors?: number[];
  /** The node executable, its flags, the script and its arguments. */
  command: string[];
  /** null when the process was killed before its exit handler ran. */
  exitCode: number | null;
  /** The stop signal it died by after writing its profile (cpu-prof and heap modes: see preloadSignals.ts). */
  signal?: string;
  startedAt: string;
  endedAt?: string;
  /** Its raw profiles relative to the run folder (perf: all processes share perf.data). */
  profiles: string[];
  /** One instant on the wall clock and the monotonic clock, to put its CPU profile on the run's time axis. */
  clock?: ProcessClock;
  /** Why the in-process profiler could not profile it (cpu-prof and heap modes): see ProcessRecord. */
  notProfiled?: string;
  /** Its worker threads by Node's number and OS thread id (Linux), to name perf's threads as the other modes do. */
  threads?: ThreadRecord[];
}

/** Cached by the history view so it lists runs without loading their profiles again. */
export interface RunSummary {
  samples: number;
  topFunction?: { name: string; file: string; line: number; self: number };
}

/** What `run.json` holds: enough to tell later what was measured and how it ended. */
export interface RunInfo {
  version: typeof RUN_JSON_VERSION;
  mode: RunMode;
  command: string[];
  cwd?: string;
  nodeVersion?: string;
  startedAt: string;
  durationMs: number;
  pid?: number;
  /** The node process (for perf runs, perf's child). */
  nodePid?: number;
  exitCode?: number | null;
  signal?: string | null;
  stoppedBy: StopReason;
  port?: number;
  load?: LoadSummary | { command: string; exitCode: number | null };
  /** Raw profile files relative to the run folder; the first is the one to open. */
  profiles: string[];
  mapsFile?: string;
  error?: string;
  // attach runs
  target?: AttachTargetInfo;
  samplingIntervalUs?: number;
  samples?: number;
  parts?: number;
  /** Why an attach ended early (the connection dropped). */
  lost?: string;
  sourceMaps?: string;
  /** Remote script path → local path, for every path an attach rewrote. */
  pathMapping?: Record<string, string>;
  summary?: RunSummary;
  /** Every Node process of the run that recorded itself, by start time. */
  processes?: RunProcess[];
  /** What happened when during a launch (the Timeline's markers), in order. */
  events?: RunEvent[];
}

/** A moment of a launch: the port opened, the load started or ended, Stop (by the user, the load or a timeout). */
export interface RunEvent {
  kind: 'port' | 'loadStart' | 'loadEnd' | 'stop' | 'mark';
  at: string;
  /** A mark's name, as the user gave it ("before the fix"). */
  label?: string;
}

/** Launch: the app exited, the user stopped it, the load ended, the port never opened. Attach: duration elapsed, connection lost. */
export type StopReason = 'exit' | 'user' | 'load' | 'port-timeout' | 'error' | 'duration' | 'lost';

const RUN_JSON = 'run.json';

/**
 * How much of a run.json the extension host reads and parses (the history view, the editor's timeline and
 * hot spots): a launch's run.json is a few KB, and one with thousands of processes stays under this. A
 * repository's 16 MB run.json is left unread there instead of blocking every extension; the import worker
 * reads up to MAX_RUN_JSON_BYTES.
 */
export const HOST_RUN_JSON_BYTES = 1024 * 1024;

/** Writes run.json whole (a reader never sees half a file) and never through a symlink (see safeWrite.ts). */
export async function writeRunJson(runDir: string, info: RunInfo): Promise<string> {
  const p = join(runDir, RUN_JSON);
  await replaceFile(p, JSON.stringify(info, null, 2) + '\n');
  return p;
}

/** Adds fields to an existing run.json, keeping every other key; never replaces one that cannot be parsed or is too big to read. */
export async function updateRunJson(runDir: string, patch: Partial<RunInfo>): Promise<void> {
  let text: string | undefined;
  try {
    text = await readNamedText(join(runDir, RUN_JSON), { maxBytes: HOST_RUN_JSON_BYTES });
  } catch (e) {
    if (!(e instanceof NamedFileError && e.reason === 'missing')) return;
  }
  let run: Record<string, unknown> = {};
  if (text !== undefined) {
    try {
      run = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // mid-write by the launcher, or damaged: leave it
      return;
    }
  }
  await writeRunJson(runDir, { ...run, ...patch } as RunInfo);
}

/**
 * A path run.json names that stays inside its run folder: relative, without `..`. The launcher writes
 * plain names; `../../…` or `/etc/…` would make opening the run read files from elsewhere.
 */
export function isInRunFolder(p: unknown): p is string {
  return (
    typeof p === 'string' &&
    p !== '' &&
    !p.includes('\0') &&
    !isAbsolute(p) &&
    !/^[a-z]:|^[\\/]/i.test(p) &&
    !p.split(/[\\/]/).includes('..')
  );
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const numOrNull = (v: unknown): number | null | undefined => (v === null ? null : num(v));
/** A command line: strings kept, one string taken as the whole line. */
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

/**
 * run.json as far as it can be trusted: every field checked for its type, and the ones that are
 * wrong dropped, since the file may come from an older version, another tool or a hand edit.
 * Undefined when the text is no JSON object.
 */
export function parseRunJson(text: string): Partial<RunInfo> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Partial<RunInfo> = { ...(r as Partial<RunInfo>) };
  out.mode = typeof r.mode === 'string' && /^(prof|perf|cpu-prof|heap|attach)$/.test(r.mode) ? (r.mode as RunMode) : undefined;
  out.command = Array.isArray(r.command)
    ? r.command.filter((x): x is string => typeof x === 'string')
    : typeof r.command === 'string'
      ? [r.command]
      : undefined;
  out.cwd = str(r.cwd);
  out.startedAt = str(r.startedAt);
  out.durationMs = num(r.durationMs);
  out.pid = num(r.pid);
  out.nodePid = num(r.nodePid);
  out.exitCode = numOrNull(r.exitCode);
  out.profiles = Array.isArray(r.profiles) ? r.profiles.filter(isInRunFolder) : undefined;
  out.processes = Array.isArray(r.processes)
    ? (r.processes as RunProcess[])
        .filter((p) => !!p && typeof p === 'object' && Number.isInteger(p.pid))
        .map((p) => ({
          ...p,
          command: strings(p.command),
          ppid: num(p.ppid) ?? 0,
          exitCode: numOrNull(p.exitCode) ?? null,
          startedAt: str(p.startedAt) ?? '',
          ancestors: Array.isArray(p.ancestors) ? p.ancestors.filter((x) => Number.isInteger(x)) : undefined,
          profiles: Array.isArray(p.profiles) ? p.profiles.filter((x) => typeof x === 'string').filter(isInRunFolder) : [],
          threads: Array.isArray(p.threads)
            ? p.threads.filter((t) => !!t && typeof t === 'object' && Number.isInteger(t.threadId) && Number.isInteger(t.tid))
            : undefined,
        }))
    : undefined;
  out.mapsFile = typeof r.mapsFile === 'string' && isInRunFolder(r.mapsFile) ? r.mapsFile : undefined;
  out.events = Array.isArray(r.events)
    ? (r.events as RunEvent[]).filter(
        (e) =>
          !!e &&
          typeof e === 'object' &&
          typeof e.kind === 'string' &&
          typeof e.at === 'string' &&
          (e.label === undefined || typeof e.label === 'string') &&
          /^(port|loadStart|loadEnd|stop|mark)$/.test(e.kind),
      )
    : undefined;
  const s = r.summary as RunSummary | undefined;
  out.summary = s && typeof s === 'object' && typeof s.samples === 'number' ? s : undefined;
  return out;
}

let reads = 0;
/** How many times a run.json was read for its content in this thread (the read-once test counts them). */
export function runJsonReads(): number {
  return reads;
}

/**
 * The run folder's run.json, checked (see parseRunJson); undefined when missing, unreadable or larger than
 * `maxBytes` (HOST_RUN_JSON_BYTES unless the caller runs off the extension host).
 */
export async function readRunJson(runDir: string, maxBytes = HOST_RUN_JSON_BYTES): Promise<Partial<RunInfo> | undefined> {
  reads++;
  // A FIFO or device named run.json would block: only a regular file of a sane size is read.
  const text = await readNamedText(join(runDir, RUN_JSON), { maxBytes }).catch(() => undefined);
  return text === undefined ? undefined : parseRunJson(text);
}

/** As readRunJson, for callers that cannot wait (a small file). */
export function readRunJsonSync(runDir: string, maxBytes = HOST_RUN_JSON_BYTES): Partial<RunInfo> | undefined {
  reads++;
  let text: string;
  try {
    text = readNamedTextSync(join(runDir, RUN_JSON), maxBytes);
  } catch {
    return undefined;
  }
  return parseRunJson(text);
}

/** A run folder with its run.json read and checked once: every consumer of an opened run takes this, not the path. */
export interface OpenedRun {
  dir: string;
  info: Partial<RunInfo>;
}

/** Reads a run folder's run.json once, off the extension host's cap (the import worker, the CLI); undefined without one. */
export function openRun(dir: string, maxBytes = MAX_RUN_JSON_BYTES): OpenedRun | undefined {
  const info = readRunJsonSync(dir, maxBytes);
  return info ? { dir, info } : undefined;
}

/** A name the profilers give their raw output: V8 logs, CPU and heap profiles, perf.data (a live run's recording scripted). */
export function isRawProfileName(n: string): boolean {
  return /^isolate-.*-v8\.log$|\.(?:cpu|heap)profile$|^perf\.data$/.test(n) || isPerfSliceScript(n);
}

/**
 * `perf-script-<stamp>.txt`: the `perf script` output of a live perf run's recording (perfStream.ts: one, named by
 * when it started), or of one slice of an older live run (`perf record --switch-output` named its slices
 * `perf.data.<stamp>` by the time each ended, so the names sort in time order).
 */
/** The text a live perf run's perf script writes while the run goes on, renamed `perf-script-<stamp>.txt` at the end. */
export const PERF_STREAM_PART = /^perf-script-(\d+)\.txt\.part$/;

export function isPerfSliceScript(n: string): boolean {
  return /^perf-script-\d+\.txt$/.test(n);
}

/**
 * The raw profiles a run wrote, the main one first: for `--prof` the main isolate's log (created
 * first; worker isolates follow), for `--cpu-prof` the main thread's file (thread id 0), for perf `perf.data`.
 */
export function findRawProfiles(runDir: string, mode: LaunchMode, pid?: number): string[] {
  let names: string[];
  try {
    names = readdirSync(runDir);
  } catch {
    return [];
  }
  const nonEmpty = (n: string) => {
    try {
      return statSync(join(runDir, n)).size > 0;
    } catch {
      return false;
    }
  };
  if (mode === 'perf') {
    // A live run's script is its recording read (its perf.data is the pipe format perf wrote, read only without a script).
    const slices = names.filter((n) => isPerfSliceScript(n) && nonEmpty(n)).sort();
    const files = slices.length ? slices : names.filter((n) => n === 'perf.data' && nonEmpty(n));
    return files.map((n) => join(runDir, n));
  }
  if (mode === 'cpu-prof' || mode === 'heap') {
    const ext = mode === 'heap' ? '.heapprofile' : '.cpuprofile';
    // A live heap run's copies (live-heap-<pid>.heapprofile) are the live view's, not the run's profiles.
    const files = names.filter((n) => n.endsWith(ext) && !LIVE_HEAP_NAME.test(n) && nonEmpty(n));
    // CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile (Heap.….heapprofile alike)
    const rank = (n: string) => {
      const m = /\.(\d+)\.(\d+)\.(\d+)\.(?:cpu|heap)profile$/.exec(n);
      if (!m) return 2;
      if (pid !== undefined && Number(m[1]) !== pid) return 1;
      return m[2] === '0' ? 0 : 1;
    };
    return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((n) => join(runDir, n));
  }
  const logs = names.filter((n) => /^isolate-.*-v8\.log$/.test(n) && nonEmpty(n));
  const born = (n: string) => {
    const s = statSync(join(runDir, n));
    return s.birthtimeMs || s.ctimeMs;
  };
  const byPid = (n: string) => (pid !== undefined && n.includes(`-${pid}-`) ? 0 : 1);
  return logs.sort((a, b) => byPid(a) - byPid(b) || born(a) - born(b) || a.localeCompare(b)).map((n) => join(runDir, n));
}

/**
 * Drops the empty profile files a full disk leaves (node creates the file, then cannot write it); true when
 * there were some and the disk is indeed (nearly) full.
 */
export function removeEmptyProfiles(runDir: string): boolean {
  let empty: string[];
  try {
    empty = readdirSync(runDir).filter((n) => isRawProfileName(n) && statSync(join(runDir, n)).size === 0);
  } catch {
    return false;
  }
  for (const n of empty) rmSync(join(runDir, n), { force: true });
  return empty.length > 0 && diskNearlyFull(runDir);
}

/** Under 1 MiB left where the run folder is: an in-process profiler's write failed there without leaving a file. */
export function diskNearlyFull(runDir: string): boolean {
  try {
    const fs = statfsSync(runDir);
    return fs.bavail * fs.bsize < 1024 * 1024;
  } catch {
    return false;
  }
}

/** Drops a run folder nothing was written to (the run could not start), so history shows no empty runs. */
export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}
