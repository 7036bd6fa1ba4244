import { readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { replaceFile } from '../core/safeWrite';

/** Signals a whole process group (children were spawned detached, so their pid is the group id). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Direct children of a process (Linux /proc; empty elsewhere). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // no /proc, or the process is gone
  }
  return out;
}

/** All descendants, parents before children. */
export function descendantPids(pid: number): number[] {
  const out: number[] = [];
  const queue = childPids(pid);
  while (queue.length) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...childPids(p));
  }
  return out;
}

/** Copies `/proc/<pid>/maps` (Linux) into `dest`; false when there is no such file. */
export async function captureMaps(pid: number, dest: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    // /proc files report size 0, so they are read, not copied.
    await replaceFile(dest, await readFile(`/proc/${pid}/maps`));
    return true;
  } catch {
    return false;
  }
}
