import type * as ChildProcess from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = () => require('node:child_process') as typeof ChildProcess;

/**
 * Where a stripped library's static functions are named: the debug file the system has for its build-id
 * (`<root>/.build-id/xx/rest.debug`, as gdb and perf look; roots from NODE_FLAME_DEBUG_DIRS, else /usr/lib/debug),
 * or one a debuginfod server named by DEBUGINFOD_URLS has (`debuginfod-find`). perf mode and prof mode both ask here.
 */
const DEBUG_DIRS_ENV = 'NODE_FLAME_DEBUG_DIRS';

/** A tool's standard output, or null when it could not be run, failed or timed out. */
export function toolOutput(cmd: string, args: string[], timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) =>
    childProcess().execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout) => resolve(err ? null : String(stdout))),
  );
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

function debugRoots(): string[] {
  const env = process.env[DEBUG_DIRS_ENV];
  return env ? env.split(':').filter(Boolean) : ['/usr/lib/debug'];
}

/** The debug file for a build-id: under a debug root, else from debuginfod when DEBUGINFOD_URLS names a server. */
export async function debugFileFor(buildId: string): Promise<string | null> {
  if (!/^[0-9a-f]{4,}$/.test(buildId)) return null;
  for (const root of debugRoots()) {
    const p = join(root, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`);
    if (await isFile(p)) return p;
  }
  if (!process.env.DEBUGINFOD_URLS) return null;
  const out = await toolOutput('debuginfod-find', ['debuginfo', buildId], 30_000);
  const path = out?.trim().split('\n').pop();
  return path && (await isFile(path)) ? path : null;
}
