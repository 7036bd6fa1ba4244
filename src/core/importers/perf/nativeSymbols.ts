import type * as ChildProcess from 'node:child_process';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { offsetToVaddr, readElfLayout, symbolsFor, type ElfLayout, type SymbolTable } from '../../symbols';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = () => require('node:child_process') as typeof ChildProcess;

/**
 * Names for native code perf could not name (a stripped library's static functions): from the debug file
 * the system has for the library's build-id (`<root>/.build-id/xx/rest.debug`, roots from NODE_FLAME_DEBUG_DIRS,
 * else /usr/lib/debug; or a debuginfod server named by DEBUGINFOD_URLS, through `debuginfod-find`), else
 * `library+0xoffset` so that code stays in its own library and is never merged with another's `[unknown]`.
 */

export const DEBUG_DIRS_ENV = 'NODE_FLAME_DEBUG_DIRS';

interface DebugSymbols {
  table: SymbolTable;
  layout: ElfLayout | null;
}

/** Debug symbols by library path, for the libraries a recording has samples in. */
export type NativeDebugSymbols = Map<string, DebugSymbols>;

function run(cmd: string, args: string[], timeoutMs: number): Promise<string | null> {
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
async function debugFileFor(buildId: string): Promise<string | null> {
  if (!/^[0-9a-f]{4,}$/.test(buildId)) return null;
  for (const root of debugRoots()) {
    const p = join(root, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`);
    if (await isFile(p)) return p;
  }
  if (!process.env.DEBUGINFOD_URLS) return null;
  const out = await run('debuginfod-find', ['debuginfo', buildId], 30_000);
  const path = out?.trim().split('\n').pop();
  return path && (await isFile(path)) ? path : null;
}

/** A library a recording has samples in, as `perf buildid-list` names it. */
export interface RecordedLibrary {
  id: string;
  path: string;
}

/** The recording's libraries with their build-ids (`perf buildid-list`, which reads the recording's header: ~80 ms). */
export async function recordedLibraries(perfPath: string, file: string): Promise<RecordedLibrary[]> {
  const list = await run(perfPath, ['buildid-list', '-i', file], 30_000);
  const out: RecordedLibrary[] = [];
  for (const line of (list ?? '').split('\n')) {
    const sp = line.indexOf(' ');
    const path = line.slice(sp + 1).trim();
    if (sp < 0 || !path.startsWith('/') || /\/perf-\d+\.map$/.test(path)) continue;
    out.push({ id: line.slice(0, sp), path });
  }
  return out;
}

/**
 * The debug symbols of every file-backed library the recording has samples in. Libraries perf names by itself lose
 * nothing; only frames it leaves unnamed ask.
 */
export async function nativeDebugSymbols(recorded: RecordedLibrary[]): Promise<NativeDebugSymbols> {
  const out: NativeDebugSymbols = new Map();
  for (const { id, path } of recorded) {
    const debug = await debugFileFor(id);
    if (!debug) continue;
    try {
      const table = await symbolsFor(debug, undefined, true);
      if (table.size) out.set(path, { table, layout: await readElfLayout(path).catch(() => null) });
    } catch {
      // nm missing or the file unreadable: the frames keep library+offset
    }
  }
  return out;
}

/** The name of an unnamed frame at `offset` (perf's file offset in `dso`): a debug symbol, else `library+0xoffset`. */
export function nativeName(syms: NativeDebugSymbols, dso: string, offset: number): string {
  const d = syms.get(dso);
  if (d) {
    const i = d.table.find(offsetToVaddr(d.layout, offset));
    const name = i >= 0 ? d.table.name(i) : '';
    if (name) return name;
  }
  return `${basename(dso)}+0x${offset.toString(16)}`;
}
