import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LaunchMode } from './modes';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `<YYYYMMDD-HHMMSS>-<mode>` in local time: sorts by time and says what ran. */
export function runFolderName(mode: LaunchMode, when: Date = new Date()): string {
  const d = `${when.getFullYear()}${pad(when.getMonth() + 1)}${pad(when.getDate())}`;
  const t = `${pad(when.getHours())}${pad(when.getMinutes())}${pad(when.getSeconds())}`;
  return `${d}-${t}-${mode}`;
}

/** Creates a fresh run folder under `base` (two runs in one second get `-2`, `-3`, …). */
export function createRunDir(base: string, mode: LaunchMode, when: Date = new Date()): string {
  mkdirSync(base, { recursive: true });
  // Profiles are large and machine-specific: keep a fresh .nodeflame/ out of git unless the user decides otherwise.
  const ignore = join(base, '.gitignore');
  if (basename(base) === '.nodeflame' && !existsSync(ignore)) writeFileSync(ignore, '*\n');
  const name = runFolderName(mode, when);
  for (let i = 1; ; i++) {
    const dir = join(base, i === 1 ? name : `${name}-${i}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
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

/** What `run.json` holds: enough to tell later what was measured and how it ended. */
export interface RunInfo {
  version: 1;
  mode: LaunchMode;
  command: string[];
  cwd: string;
  nodeVersion?: string;
  startedAt: string;
  durationMs: number;
  pid?: number;
  /** The node process (for perf runs, perf's child). */
  nodePid?: number;
  exitCode: number | null;
  signal: string | null;
  stoppedBy: StopReason;
  port?: number;
  load?: LoadSummary;
  /** Raw profile files relative to the run folder; the first is the one to open. */
  profiles: string[];
  mapsFile?: string;
  error?: string;
}

export type StopReason = 'exit' | 'user' | 'load' | 'port-timeout' | 'error';

export async function writeRunJson(runDir: string, info: RunInfo): Promise<string> {
  const p = join(runDir, 'run.json');
  await writeFile(p, JSON.stringify(info, null, 2) + '\n');
  return p;
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
  if (mode === 'perf') return names.filter((n) => n === 'perf.data' && nonEmpty(n)).map((n) => join(runDir, n));
  if (mode === 'cpu-prof') {
    const files = names.filter((n) => n.endsWith('.cpuprofile') && nonEmpty(n));
    // CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile
    const rank = (n: string) => {
      const m = /\.(\d+)\.(\d+)\.(\d+)\.cpuprofile$/.exec(n);
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

/** Drops a run folder nothing was written to (the run could not start), so history shows no empty runs. */
export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}
