import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applySourceMaps, MAX_MAP_BYTES, parseMap, SourceMapCache, type SourceMapOptions } from './sourcemaps';
import { readNamedText } from './namedFiles';
import { fileUrlToPathAnyOs } from './paths';
import type { Profile } from './model';

/**
 * The file a run folder keeps beside its profile: script URL → the `sourceMapURL` the process saw.
 * Written by an attach, and by the launcher's preload for code a loader (tsx, ts-node) transpiled in memory.
 */
export const ANNOUNCED_MAPS_FILE = 'sourcemaps.json';

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

/** The announced maps a run folder keeps beside `profilePath`; empty when there are none or the file is unreadable. */
export async function readAnnouncedSourceMaps(profilePath: string): Promise<Record<string, string>> {
  const file = join(dirname(profilePath), ANNOUNCED_MAPS_FILE);
  if (basename(profilePath) === ANNOUNCED_MAPS_FILE) return {};
  try {
    const parsed = JSON.parse(await readNamedText(file, { maxBytes: MAX_ANNOUNCED_BYTES })) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}
