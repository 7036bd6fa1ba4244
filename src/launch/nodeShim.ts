import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createNewFileSync } from '../core/safeWrite';

/** `<run folder>/.shim`: the folder of the `node` shim, removed when the run ends. */
export const SHIM_DIR = '.shim';

/** `'…'` for a POSIX shell: the only character that needs care inside single quotes is the quote itself. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A folder only this user can create entries in: owned by us, not a symlink, not writable by group or others. */
function privateFolder(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Where the shim goes: inside the run folder when only this user can create entries there, else under a
 * 0700 folder in the user's runtime or cache directory. Never a name in a shared /tmp: a process that
 * outlives the run keeps the folder first on PATH, and another user could create it again with a `node`
 * of their own once it is removed.
 */
function shimParent(runDir: string): string {
  if (privateFolder(runDir)) return runDir;
  const runtime = process.env.XDG_RUNTIME_DIR;
  const base = runtime && privateFolder(runtime) ? join(runtime, 'node-flame') : join(homedir(), '.cache', 'node-flame', 'shims');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  chmodSync(base, 0o700);
  if (!privateFolder(base)) throw new Error(`${base} is not a private folder; the node shim is not written there`);
  return mkdtempSync(join(base, 'run-'));
}

/**
 * A folder holding a `node` that runs the real node with the profiler's flags first. Put first on
 * PATH, it catches every `node` a command starts by name: npm and its scripts, shebang CLIs
 * (`#!/usr/bin/env node`), nodemon's restarts. Flags Node refuses in NODE_OPTIONS (`--prof`,
 * `--cpu-prof`, `--logfile`) reach those processes this way, and children they fork inherit them
 * through `process.execArgv`. POSIX only: the shim is a shell script with fixed words, no user input.
 */
export function writeNodeShim(realNode: string, flags: string[], runDir: string): string {
  const dir = join(shimParent(runDir), SHIM_DIR);
  mkdirSync(dir, { mode: 0o700 });
  createNewFileSync(join(dir, 'node'), `#!/bin/sh\nexec ${[realNode, ...flags].map(shellQuote).join(' ')} "$@"\n`, 0o700);
  return dir;
}

/** Removes the shim folder (and the private folder holding it, when it is not the run folder). */
export function removeNodeShim(dir: string, runDir?: string): void {
  rmSync(dir, { recursive: true, force: true });
  const parent = join(dir, '..');
  if (runDir !== undefined && parent !== join(runDir)) rmSync(parent, { recursive: true, force: true });
}

/** PATH with `dir` first. */
export function pathWithFirst(dir: string, path = process.env.PATH ?? ''): string {
  return path ? `${dir}${delimiter}${path}` : dir;
}

/** NODE_OPTIONS plus `--require <preload>`, quoted as Node's NODE_OPTIONS parser reads it. */
export function nodeOptionsWithPreload(preloadPath: string, existing = ''): string {
  const req = `--require ${JSON.stringify(preloadPath)}`;
  return existing.trim() ? `${existing.trim()} ${req}` : req;
}
