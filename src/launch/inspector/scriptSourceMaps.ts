import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AnyMap, TraceMap } from '@jridgewell/trace-mapping';
import { applySourceMaps, SourceMapCache } from '../../core/sourcemaps';
import { fileUrlToPathAnyOs } from '../../core/paths';
import type { Profile } from '../../core/model';

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
 * Source maps the profiled process announced (`Debugger.scriptParsed` → `sourceMapURL`), for scripts
 * whose file here carries no map of its own: code transpiled in memory (ts-node, `tsx`) has an inline
 * map that exists only in the process. Maps the file on disk provides are left to the ordinary cache.
 */
class AnnouncedMapCache extends SourceMapCache {
  constructor(
    private readonly announced: Map<string, string>,
    private readonly mapPath: (p: string) => string | undefined,
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
        json = await readFile(local, 'utf8').catch(() => null);
        mapUrl = pathToFileURL(local).href;
      }
      if (!json) return null;
      const raw = JSON.parse(json.replace(/^\)\]\}'[^\n]*\n/, '')) as { sections?: unknown };
      const map = raw.sections ? AnyMap(raw as never, mapUrl) : new TraceMap(raw as never, mapUrl);
      const paths = map.resolvedSources.map((s, i) => this.local(s, map.sources[i]));
      return { map, paths };
    } catch {
      return null;
    }
  }

  /** A map's source as a file on this disk: as resolved, as written, or through the path mapping (a container's `/app/src/x.ts`). */
  private local(resolved: string | null, raw: string | null): string | null {
    for (const c of [resolved && fileUrlToPathAnyOs(resolved), raw]) {
      if (!c) continue;
      if (isAbsolute(c) && existsSync(c)) return c;
      const m = this.mapPath(c);
      if (m && existsSync(m)) return m;
    }
    return null;
  }
}

/**
 * Applies the source maps collected while attached. `sourceMaps` is keyed by the script URLs of the
 * profiled process; `mapped` says which of them were rewritten to local paths when saving.
 */
export async function applyScriptSourceMaps(
  profile: Profile,
  sourceMaps: Record<string, string>,
  mapped: Record<string, string>,
  mapPath: (p: string) => string | undefined,
): Promise<void> {
  const announced = new Map<string, string>();
  for (const [url, ref] of Object.entries(sourceMaps)) announced.set(mapped[url] ?? fileUrlToPathAnyOs(url), ref);
  if (announced.size === 0) return;
  await applySourceMaps(profile, new AnnouncedMapCache(announced, mapPath));
}
