import { stat } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { isAbsolute } from 'node:path';
import type { OpenedRun } from '../launch/run/runFolder';
import { sourceLines } from '../core/namedFiles';
import type { LineReader } from '../core/exporters/markdown';
import { afterImport, sniffFormat, type ImportOptions } from '../core/importers';
import type { Profile } from '../core/model';

/**
 * main.ts holds the young generation at its start size (RSS of a big read). A tick log's reader makes short-lived
 * objects by the million (each tick's stack), and there the young generation growing at once to V8's maximum costs
 * RSS but saves CPU: ESLint's 27 MB log 3.11 -> 2.67 s CPU (median of 7, alternated), 142 -> 161 MB RSS (session 24).
 * JSON profiles keep the small one: their bound is memory (#33). Set from the CLI only: the editor's reader shares
 * its process with the rest of the extension host.
 */
export function growYoungGenerationForTickLogs(): void {
  setFlagsFromString('--semi-space-growth-factor=16');
}

/** `loadProfileOrRun`'s hook: a prof run's profiles are tick logs. */
export function growYoungGenerationForProfRuns(run: OpenedRun): void {
  if (run.info.mode === 'prof') growYoungGenerationForTickLogs();
}

/**
 * Reads a profile for a command. A pprof usually comes from a server or a container: its paths are
 * the server's, and a file under the current folder with the same path tail stands for each.
 */
export async function loadForCli(file: string, opts: ImportOptions = {}): Promise<Profile> {
  // loadProfile, with the format sniffed once, not twice (each sniff opens the file and reads and decodes its head).
  const importer = await sniffFormat(file);
  if (importer.format === 'v8log') growYoungGenerationForTickLogs();
  const o = importer.format === 'pprof' ? { ...opts, pathMapping: { roots: [process.cwd()] } } : opts;
  return afterImport(file, await importer.load(file, o), o);
}

/** `key=value` → `{ key: value }`; undefined when there is no `=` or no key. */
export function parseLabel(s: string | undefined): Record<string, string> | undefined {
  const eq = s?.indexOf('=') ?? -1;
  if (!s || eq <= 0) return undefined;
  return { [s.slice(0, eq)]: s.slice(eq + 1) };
}

/** When the profile started, for exports that record it and profiles that do not: the file's time less the duration. */
export async function fileStartTime(file: string, profile: Profile): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs - (profile.meta.durationMs ?? 0);
  } catch {
    return undefined;
  }
}

/** A source file a report quotes is read up to this size; bigger (a bundle) is not quoted. */
const MAX_QUOTED_FILE = 4 * 1024 * 1024;

/** Reads the lines a Markdown report quotes from the files the profile names (absolute paths only; each file once). */
export function sourceLineReader(): LineReader {
  return sourceLines(isAbsolute, MAX_QUOTED_FILE);
}
