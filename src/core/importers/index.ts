import * as l10n from '@vscode/l10n';
import { Profile, ProfileError } from '../model';
import { chromeTraceImporter } from './chromeTrace';
import { cpuprofileImporter } from './cpuprofile';
import { foldedImporter } from './folded';
import { heapprofileImporter } from './heapprofile';
import { perfImporter } from './perf';
import { pprofImporter } from './pprof';
import { speedscopeImporter } from './speedscope';
import { v8logImporter } from './v8log';
import type { ImportOptions, Importer } from './types';
import { applySourceMaps } from '../sourcemaps';
import { createPathMapper, mapProfilePaths } from '../pathMapping';
import {
  applyAnnouncedScriptNames,
  applyAnnouncedSourceMaps,
  readAnnouncedSourceMaps,
  warnTransformedWithoutMap,
} from '../announcedSourceMaps';
import { NamedFileError, openNamedFile } from '../namedFiles';

export type { ImportOptions, Importer } from './types';

/**
 * Most specific first: folded stacks are the loosest format, so they are tried last; a trace's profile chunks hold
 * `nodes` and `callFrame` as a .cpuprofile does, so traces are told apart before.
 */
export const importers: Importer[] = [
  speedscopeImporter,
  chromeTraceImporter,
  heapprofileImporter,
  cpuprofileImporter,
  v8logImporter,
  perfImporter,
  pprofImporter,
  foldedImporter,
];

export async function readHead(path: string, bytes = 65536): Promise<Buffer> {
  let fh;
  try {
    // A FIFO, device or folder (a symlink in a cloned repository can name one) is refused before any read.
    ({ fh } = await openNamedFile(path, { maxBytes: Number.MAX_SAFE_INTEGER }));
  } catch (e) {
    if (e instanceof NamedFileError) throw new ProfileError(e.message, path);
    throw new ProfileError(`cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, path);
  }
  try {
    const buf = Buffer.alloc(bytes);
    // A directory opens fine and only fails here (EISDIR): still the user's input, not our bug.
    const { bytesRead } = await fh.read(buf, 0, bytes, 0).catch((e: NodeJS.ErrnoException) => {
      throw new ProfileError(`cannot read: ${e.code ?? e.message}`, path);
    });
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export async function sniffFormat(path: string): Promise<Importer> {
  const head = await readHead(path);
  if (head.length === 0) throw new ProfileError(l10n.t('the file is empty'), path);
  const found = importers.find((i) => i.sniff(head, path));
  if (!found)
    throw new ProfileError(
      l10n.t(
        'not a profile Node Flame reads (expected a V8 tick log, .cpuprofile, .heapprofile, a Chrome trace, speedscope JSON, perf script output, perf.data, pprof or folded stacks)',
      ),
      path,
    );
  return found;
}

/** Reads any supported profile file into the one model, source maps applied. */
export async function loadProfile(path: string, opts: ImportOptions = {}): Promise<Profile> {
  const importer = await sniffFormat(path);
  return afterImport(path, await importer.load(path, opts), opts);
}

/** What every import gets once its reader is done: the path mapping and source maps (a live read's copy gets them too). */
export async function afterImport(path: string, profile: Profile, opts: ImportOptions = {}): Promise<Profile> {
  profile.meta.source ??= path;
  // Paths are mapped before maps are looked for, and the mapping also places the maps' sources: one pass, never two.
  const mapPath =
    opts.pathMapping && (!opts.pathMappingFormats || opts.pathMappingFormats.includes(profile.format))
      ? createPathMapper(opts.pathMapping)
      : undefined;
  if (mapPath) mapProfilePaths(profile, mapPath);
  // A run folder's sourcemaps.json holds the maps of code transpiled in memory (tsx, ts-node, attach), and the scripts
  // named with spaces that tell a perf frame's name from its script's.
  const named = new Set<string>();
  const announced = await readAnnouncedSourceMaps(path, named);
  applyAnnouncedScriptNames(profile, named);
  if (opts.sourceMaps !== false) {
    const smOpts = { ...opts.sourceMapOptions, mapPath };
    await applyAnnouncedSourceMaps(profile, announced, mapPath, smOpts);
    await applySourceMaps(profile, undefined, smOpts);
    warnTransformedWithoutMap(profile, announced);
  }
  return profile;
}
