import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appendSync, createNewFileSync } from '../../core/safeWrite';

/**
 * Whether a run is still going, as a process of it can tell: a process that outlives its run (a daemon the
 * app started, a child that ignored SIGINT) keeps the run's environment, and must stop writing into the
 * finished run folder; a run whose launcher died (the CLI SIGKILLed, the extension host crashed) has nobody
 * to stop the app, so the preload stops it.
 */

/** `<run folder>/.running`: made by the launcher before the app starts, removed when the run ends. */
export const LIVE_MARKER = '.running';

/** `<pid>:<start time>` of the launcher, so a pid reused by another process is not taken for it. */
export const LAUNCHER_ENV = 'NODE_FLAME_LAUNCHER';

/** A process's start time in clock ticks since boot (Linux), undefined elsewhere or when it is gone. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // After the parenthesised command name: state is field 3, starttime field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process as the launcher of a run (LAUNCHER_ENV's value). */
export function launcherToken(pid = process.pid): string {
  return `${pid}:${startTicks(pid) ?? ''}`;
}

/** Whether the process a LAUNCHER_ENV value names still runs (true when the value is missing or malformed: nothing to watch). */
export function launcherAlive(token: string | undefined): boolean {
  const m = /^(\d+):(\d*)$/.exec(token ?? '');
  if (!m) return true;
  const pid = Number(m[1]);
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTicks(pid);
  return !m[2] || now === undefined || now === m[2];
}

export function markRunLive(runDir: string): void {
  createNewFileSync(join(runDir, LIVE_MARKER), `${process.pid}\n`);
}

export function markRunFinished(runDir: string): void {
  try {
    unlinkSync(join(runDir, LIVE_MARKER));
  } catch {
    // never made (a run that did not start), or removed already
  }
}

/** The run is live: its marker is there (a regular file, not a planted symlink) and its launcher runs. */
export function runIsLive(runDir: string, launcher = process.env[LAUNCHER_ENV]): boolean {
  try {
    if (!lstatSync(join(runDir, LIVE_MARKER)).isFile()) return false;
  } catch {
    return false;
  }
  return launcherAlive(launcher);
}

/**
 * Appends `text` to a file of the run folder while the run is live (from the preload; see core/safeWrite's
 * appendSync); false once the run has ended (or its launcher died): the process outlived it and writes no more.
 */
export function appendWhileLive(runDir: string, file: string, text: string): boolean {
  if (!runIsLive(runDir)) return false;
  appendSync(file, text);
  return true;
}

/** Calls `onGone` once when the launcher is gone; checks every `everyMs` on an unref'd timer (never keeps the app alive). */
export function watchLauncher(onGone: () => void, everyMs = 1000, launcher = process.env[LAUNCHER_ENV]): void {
  if (!launcher) return;
  const timer = setInterval(() => {
    if (launcherAlive(launcher)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
}
