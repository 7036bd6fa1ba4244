import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createNewFileSync, replaceFileSync } from '../../core/safeWrite';
import { runIsLive } from './runLiveness';
import { join } from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import type { RunProcess } from './runFolder';
import { wallClockEdge } from './wallClock';
import { writeBeforeSignalDeath } from '../preload/signals';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const workerThreads = () => require('node:worker_threads') as typeof WorkerThreads;

/** Set by the launcher to the run folder; every Node process of the run that loads the preload records itself there. */
export const RUN_DIR_ENV = 'NODE_FLAME_RUN_DIR';

/**
 * Sub-folder of a run folder with one `<pid>.record` (JSON) per Node process. Not `.json`: a watcher such as nodemon
 * watches `.js`/`.json` files under the app's folder, where the run folder is, and restarted the app at every
 * record a new server wrote, for ever. Runs made before are read too (`<pid>.json`).
 */
export const PROCESSES_DIR = 'processes';
const RECORD_EXT = '.record';

/** One Node process of a run, as it recorded itself: at start, then again at exit. */
export interface ProcessRecord {
  pid: number;
  ppid: number;
  /** `process.argv` with the node executable first (execArgv not included). */
  argv: string[];
  execArgv: string[];
  /** Where it started: V8 writes a perf run's jitdump (`jit-<pid>.dump`) there. */
  cwd?: string;
  startedAt: string;
  endedAt?: string;
  /** Absent when the process was killed before its exit handler could run. */
  exitCode?: number;
  /** The stop signal it died by, when the preload saw it coming (see preloadSignals.ts). */
  signal?: string;
  /** The parent's parent and up (Linux), so a process started through a shell still nests under the Node process above it. */
  ancestors?: number[];
  /** One moment on the wall clock and on the monotonic clock V8's CPU profiles count in (see runClock.ts). */
  clock?: ProcessClock;
  /** Why cpu-prof or heap mode could not profile this process (NOT_PROFILED_NO_INSPECTOR). */
  notProfiled?: string;
  /** Its worker threads' OS thread ids, as each recorded itself (`<pid>-<threadId>.thread`; added when read). */
  threads?: ThreadRecord[];
}

/** A worker thread: Node's number for it and the OS thread its JavaScript runs on (what perf names it by). */
export interface ThreadRecord {
  threadId: number;
  tid: number;
}

/**
 * Node's inspector is missing from the process: Node starts the runner process of `node --test` without it (Node
 * 20), and a node built without it has none. cpu-prof and heap modes profile through it, in-process.
 */
export const NOT_PROFILED_NO_INSPECTOR = 'no-inspector';

/** This process's record and its writer, once recordThisProcess has written it. */
let own: { rec: ProcessRecord; write: () => boolean } | undefined;

/** Notes in this process's record that its in-process profiler could not start, so the run says why its profile is missing. */
export function recordNotProfiled(reason: string): void {
  if (!own) return;
  own.rec.notProfiled = reason;
  own.write();
}

/** The same instant as epoch ms and as ms of the monotonic clock (`process.hrtime`, V8's TimeTicks). */
export interface ProcessClock {
  epochMs: number;
  monoMs: number;
}

/** `proc-maps-<pid>.txt`: the process's `/proc/<pid>/maps`, which perf's native symbols are resolved against. */
export function mapsFileName(pid: number): string {
  return `proc-maps-${pid}.txt`;
}

/**
 * Runs inside each profiled process (from the preload): writes its record at once, so the launcher
 * knows the pid from the moment the process exists whatever its timing, and again at exit with the
 * exit code and the final memory maps (every addon and library loaded by then).
 */
export function recordThisProcess(): void {
  const runDir = process.env[RUN_DIR_ENV];
  // A worker thread shares its process's pid and record.
  if (!runDir || !workerThreads().isMainThread) return;
  const dir = join(runDir, PROCESSES_DIR);
  const rec: ProcessRecord = {
    pid: process.pid,
    ppid: process.ppid,
    argv: [process.execPath, ...process.argv.slice(1)],
    execArgv: process.execArgv,
    cwd: process.cwd(),
    startedAt: new Date().toISOString(),
    ancestors: ancestorsOf(process.ppid),
    clock: { epochMs: wallClockEdge(), monoMs: Number(process.hrtime.bigint()) / 1e6 },
  };
  const write = () => {
    // A process that outlived its run leaves the finished run folder alone.
    if (!runIsLive(runDir)) return false;
    try {
      replaceFileSync(join(dir, `${process.pid}${RECORD_EXT}`), JSON.stringify(rec));
    } catch {
      // a run folder that went away must not break the app
    }
    return true;
  };
  try {
    mkdirSync(dir, { recursive: true });
    // A symlink named `processes` would carry every record to where it points.
    if (!lstatSync(dir).isDirectory()) return;
  } catch {
    return;
  }
  write();
  own = { rec, write };
  const end = (code: number | undefined, signal: string | undefined) => {
    rec.exitCode = code;
    if (signal) rec.signal = signal;
    rec.endedAt = new Date().toISOString();
    if (!write() || process.platform !== 'linux') return;
    try {
      replaceFileSync(join(runDir, mapsFileName(process.pid)), readFileSync(`/proc/${process.pid}/maps`));
    } catch {
      // no /proc: perf symbols then come from the maps the launcher captured, if any
    }
  };
  process.on('exit', (code) => end(code, undefined));
  writeBeforeSignalDeath((signal) => end(undefined, signal));
}

/** Up to 8 ancestors above `ppid`, read from /proc (empty elsewhere). */
export function ancestorsOf(ppid: number): number[] {
  const out: number[] = [];
  if (process.platform !== 'linux') return out;
  for (let pid = ppid; out.length < 8 && pid > 1; ) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      break;
    }
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(parent) || parent <= 1 || out.includes(parent)) break;
    out.push(parent);
    pid = parent;
  }
  return out;
}

/**
 * Runs in each worker thread (from the preload, Linux): writes `<pid>-<threadId>.thread` beside the process's record,
 * so perf's threads, known by their OS ids, are named by Node's thread numbers as the other modes name them.
 */
export function recordThisThread(): void {
  const runDir = process.env[RUN_DIR_ENV];
  const wt = workerThreads();
  if (!runDir || wt.isMainThread || process.platform !== 'linux') return;
  try {
    // `<pid>/task/<tid>`: the OS thread this worker's JavaScript runs on.
    const m = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    const dir = join(runDir, PROCESSES_DIR);
    if (!m || !runIsLive(runDir) || !lstatSync(dir).isDirectory()) return;
    const rec: ThreadRecord = { threadId: wt.threadId, tid: Number(m[1]) };
    createNewFileSync(join(dir, `${process.pid}-${wt.threadId}.thread`), JSON.stringify(rec));
  } catch {
    // unrecorded, the thread keeps its OS id in perf's views
  }
}

/** The records of a run folder, by start time. */
export function readProcessRecords(runDir: string): ProcessRecord[] {
  let names: string[];
  try {
    names = readdirSync(join(runDir, PROCESSES_DIR));
  } catch {
    return [];
  }
  const out: ProcessRecord[] = [];
  const threads = new Map<number, ThreadRecord[]>();
  for (const n of names) {
    const t = /^(\d+)-\d+\.thread$/.exec(n);
    if (t) {
      try {
        const r = JSON.parse(readFileSync(join(runDir, PROCESSES_DIR, n), 'utf8')) as ThreadRecord;
        if (Number.isInteger(r.threadId) && Number.isInteger(r.tid)) threads.set(Number(t[1]), [...(threads.get(Number(t[1])) ?? []), r]);
      } catch {
        // being written
      }
      continue;
    }
    if (!/^\d+\.(?:record|json)$/.test(n)) continue;
    try {
      const r = JSON.parse(readFileSync(join(runDir, PROCESSES_DIR, n), 'utf8')) as ProcessRecord;
      if (Number.isInteger(r.pid)) out.push(r);
    } catch {
      // written at this very moment, or cut short by a kill: the next read sees it
    }
  }
  for (const r of out) {
    const t = threads.get(r.pid);
    if (t) r.threads = t.sort((a, b) => a.threadId - b.threadId);
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
}

/** The pid a raw profile's name holds: `isolate-<addr>-<pid>-<n>-v8.log`, `CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile`. */
export function profilePid(name: string): number | undefined {
  const m = /^isolate-0x[0-9a-f]+-(\d+)-/.exec(name) ?? /^(?:CPU|Heap)\.\d+\.\d+\.(\d+)\.\d+\.\d+\.(?:cpu|heap)profile$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** run.json's process list: each recorded process with the raw profiles named by its pid. */
export function runProcesses(records: ProcessRecord[], profiles: string[]): RunProcess[] {
  return records.map((r) => ({
    pid: r.pid,
    ppid: r.ppid,
    ...(r.ancestors?.length ? { ancestors: r.ancestors } : {}),
    command: [...r.argv.slice(0, 1), ...r.execArgv, ...r.argv.slice(1)],
    exitCode: r.exitCode ?? null,
    ...(typeof r.signal === 'string' ? { signal: r.signal } : {}),
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    ...(r.clock ? { clock: r.clock } : {}),
    ...(typeof r.notProfiled === 'string' ? { notProfiled: r.notProfiled } : {}),
    ...(r.threads?.length ? { threads: r.threads } : {}),
    profiles: profiles.filter((p) => profilePid(p.split(/[\\/]/).pop() ?? p) === r.pid),
  }));
}
