import { basename } from 'node:path';
import { debugFileFor, offsetToVaddr, toolOutput, readElfLayout, symbolsFor, type ElfLayout, type SymbolTable } from '../../symbols';

/**
 * Names for native code perf could not name (a stripped library's static functions): from the library's debug file
 * (symbols/debugFiles.ts), else `library+0xoffset` so that code stays in its own library and is never merged with
 * another's `[unknown]`.
 */

interface DebugSymbols {
  table: SymbolTable;
  layout: ElfLayout | null;
}

/** Debug symbols by library path, for the libraries a recording has samples in. */
export type NativeDebugSymbols = Map<string, DebugSymbols>;

/** A library a recording has samples in, as `perf buildid-list` names it. */
export interface RecordedLibrary {
  id: string;
  path: string;
}

/** The recording's libraries with their build-ids (`perf buildid-list`, which reads the recording's header: ~80 ms). */
export async function recordedLibraries(perfPath: string, file: string): Promise<RecordedLibrary[]> {
  const list = await toolOutput(perfPath, ['buildid-list', '-i', file], 30_000);
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
