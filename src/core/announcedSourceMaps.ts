import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applySourceMaps, MAX_MAP_BYTES, parseMap, SourceMapCache, type SourceMapOptions } from './sourcemaps';
import { readNamedText } from './namedFiles';
import { fileUrlToPathAnyOs } from './paths';
import { classifyJsFile, type Category, type Profile } from './model';

/**
 * The file a run folder keeps beside its profile: script URL → the `sourceMapURL` the process saw.
 * Written by an attach (a launched run's processes write theirs per process: exitMapFileName).
 */
export const ANNOUNCED_MAPS_FILE = 'sourcemaps.json';

/** The file each preloaded process (and worker thread) writes with the inline maps of code compiled in memory. */
export function inlineMapFileName(pid: number, threadId: number): string {
  return `sourcemaps-${pid}-${threadId}.jsonl`;
}
/** The file each preloaded process (and thread) of a run writes at exit with the maps its inspector listed (tsx's ES modules). */
export function exitMapFileName(pid: number, threadId: number): string {
  return `sourcemaps-${pid}-${threadId}.json`;
}
/** `.jsonl`: one `[file, map]` a line, appended as code compiles; `.json`: one object, written at exit. */
const INLINE_MAPS_FILE = /^sourcemaps-\d+-\d+\.jsonl?$/;

/** The value a file gets in those files when its code was transformed in memory and came with no map. */
export const TRANSFORMED_NO_MAP = '';

/**
 * The value a script named with a space and not by a path gets there (readers before it skip entries that are not
 * strings): where its frames' names end (applyAnnouncedScriptNames).
 */
export const SCRIPT_NAMED = null;

/** Inline maps of a big app can add up; a file larger than this is not ours. */
const MAX_ANNOUNCED_BYTES = 64 * 1024 * 1024;

type LoadedMap = NonNullable<Awaited<ReturnType<SourceMapCache['get']>>>;

function decodeData(uri: string): string | null {
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const body = uri.slice(comma + 1);
  if (/;base64$/i.test(uri.slice(5, comma))) return Buffer.from(body, 'base64').toString('utf8');
  try {
    return decodeURIComponent(body);
  } catch {
    return body;
  }
}

/**
 * Source maps the profiled process announced, for scripts whose file here carries no map of its own:
 * code transpiled in memory (ts-node, tsx) has an inline map that exists only in the process. Maps
 * the file on disk provides are left to the ordinary cache.
 */
export class AnnouncedMapCache extends SourceMapCache {
  constructor(
    private readonly announced: Map<string, string>,
    private readonly mapPath: (p: string) => string | undefined = () => undefined,
  ) {
    super();
  }

  override async get(file: string): Promise<LoadedMap | null> {
    const ref = this.announced.get(file);
    if (!ref || (await super.get(file))) return null;
    try {
      let json: string | null = null;
      let mapUrl = pathToFileURL(file).href;
      if (ref.startsWith('data:')) json = decodeData(ref);
      else if (/^file:/i.test(ref) || !/^[a-z][a-z\d+.-]+:/i.test(ref)) {
        const remote = /^file:/i.test(ref) ? fileUrlToPathAnyOs(ref) : resolve(dirname(file), ref);
        const local = existsSync(remote) ? remote : (this.mapPath(remote) ?? remote);
        json = await readNamedText(local, { maxBytes: MAX_MAP_BYTES }).catch(() => null);
        mapUrl = pathToFileURL(local).href;
      }
      if (!json) return null;
      // The file on disk is the untranspiled source (or absent): its text names nothing the map's `names` could.
      return { map: parseMap(json, mapUrl), mapDir: dirname(fileUrlToPathAnyOs(mapUrl)) };
    } catch {
      return null;
    }
  }
}

/** Applies announced maps (script URL or path → sourceMapURL) to the frames of scripts that have none on disk. */
export async function applyAnnouncedSourceMaps(
  profile: Profile,
  sourceMaps: Record<string, string>,
  mapPath?: (p: string) => string | undefined,
  opts: SourceMapOptions = {},
): Promise<void> {
  const announced = new Map<string, string>();
  for (const [url, ref] of Object.entries(sourceMaps)) if (typeof ref === 'string' && ref) announced.set(fileUrlToPathAnyOs(url), ref);
  if (announced.size === 0) return;
  await applySourceMaps(profile, new AnnouncedMapCache(announced, mapPath), { ...opts, mapPath: opts.mapPath ?? mapPath });
}

/**
 * The announced maps a run folder keeps beside `profilePath`: sourcemaps.json and each process's
 * sourcemaps-<pid>-<thread>.json, merged; empty when there are none. A file mapped to
 * TRANSFORMED_NO_MAP ran as code transformed in memory without a map (see transformedWithoutMap).
 */
export async function readAnnouncedSourceMaps(profilePath: string, named?: Set<string>): Promise<Record<string, string>> {
  const dir = dirname(profilePath);
  if (basename(profilePath) === ANNOUNCED_MAPS_FILE || INLINE_MAPS_FILE.test(basename(profilePath))) return {};
  let names: string[] = [];
  try {
    names = (await readdir(dir)).filter((n) => INLINE_MAPS_FILE.test(n)).sort();
  } catch {
    // a profile outside any folder we can list: only sourcemaps.json, if any
  }
  const out: Record<string, string> = {};
  for (const n of [...names, ANNOUNCED_MAPS_FILE]) {
    try {
      const text = await readNamedText(join(dir, n), { maxBytes: MAX_ANNOUNCED_BYTES });
      for (const [file, ref] of n.endsWith('.jsonl') ? jsonLines(text) : jsonObject(text))
        if (typeof ref === 'string' && (ref || !(file in out))) out[file] = ref;
        else if (ref === SCRIPT_NAMED) named?.add(file);
    } catch {
      // absent or unreadable: the others still count
    }
  }
  return out;
}

function jsonObject(text: string): [string, unknown][] {
  const parsed = JSON.parse(text) as unknown;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed as Record<string, unknown>) : [];
}

/** The `[file, map]` lines; a line cut short (the process killed as it wrote) is skipped. */
function jsonLines(text: string): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as unknown;
      if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string') out.push([e[0], e[1]]);
    } catch {
      // cut short
    }
  }
  return out;
}

/**
 * Warns, per file, where the profile's positions are those of code a tool transformed in memory with no
 * map to undo it (a loader without source maps): its lines may not be the file's.
 */
export function warnTransformedWithoutMap(profile: Profile, announced: Record<string, string>): void {
  const bare = new Set(
    Object.entries(announced)
      .filter(([, ref]) => ref === TRANSFORMED_NO_MAP)
      .map(([f]) => fileUrlToPathAnyOs(f)),
  );
  if (bare.size === 0) return;
  const hit = new Set<string>();
  for (const f of profile.frames) if (f.file && !f.generated && bare.has(f.file)) hit.add(f.file);
  for (const file of [...hit].sort())
    profile.warnings.push(
      l10n.t(
        '{0} ran as code transformed in memory with no source map: its lines may be those of the transformed code, not of the file',
        file,
      ),
    );
}

/**
 * Frames a reader split at the wrong space: perf's JIT maps write `render my template.ejs:1:10` for `render` in the
 * script `my template.ejs` (a vm script named so), read as `render my` in `template.ejs`. The scripts the processes
 * announced (SCRIPT_NAMED) say where the name ends.
 */
export function applyAnnouncedScriptNames(profile: Profile, named: ReadonlySet<string>): void {
  if (!named.size) return;
  const moved = new Map<string, string>();
  profile.frames.forEach((f, i) => {
    if (!f.file || /[\\/]/.test(f.file) || !f.name.includes(' ') || !RECLASSIFIED.has(f.category)) return;
    const joined = `${f.name} ${f.file}`;
    for (const script of named) {
      if (script === f.file || !script.endsWith(f.file) || !joined.endsWith(` ${script}`)) continue;
      const { category, pkg } = classifyJsFile(script);
      const { pkg: _, ...rest } = f;
      profile.frames[i] = { ...rest, name: joined.slice(0, -script.length - 1), file: script, category, ...(pkg ? { pkg } : {}) };
      moved.set(f.file, script);
      return;
    }
  });
  // Line heat moves with its frames unless a frame still names the file.
  const still = new Set(profile.frames.map((f) => f.file));
  for (const [from, to] of moved) {
    const hits = profile.lineHits.get(from);
    if (!hits || still.has(from)) continue;
    profile.lineHits.delete(from);
    profile.lineHits.set(to, hits);
  }
}

/** Categories that came from the file a frame was read in (not eval'd code, WebAssembly or native code). */
const RECLASSIFIED = new Set<Category>(['app', 'node', 'dependency']);
