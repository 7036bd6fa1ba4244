import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AnyMap, decodedMappings, GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { classifyJsFile, type Frame, type LineHits, type Profile, type SourcePosition } from './model';
import { fileUrlToPathAnyOs } from './paths';
import { readNamedText, regularFile } from './namedFiles';

/** Bundles bigger than this are not read for a map comment (inline maps make them large, not this large). */
const MAX_SCRIPT_BYTES = 256 * 1024 * 1024;
/** A map file a script names (its path is the script's choice, so it is read as untrusted). */
export const MAX_MAP_BYTES = 256 * 1024 * 1024;

interface LoadedMap {
  map: TraceMap;
  /** On-disk path of each source, or null when it is not on this disk. */
  paths: (string | null)[];
}

/**
 * Source maps per generated file, read and parsed once; a rebuilt script (new mtime or size) is
 * read again, since the extension host lives across edit → build → profile cycles.
 */
export class SourceMapCache {
  private readonly maps = new Map<string, { stamp: string; map: Promise<LoadedMap | null> }>();

  async get(file: string): Promise<LoadedMap | null> {
    if (!isAbsolute(file)) return null;
    const st = await regularFile(file, MAX_SCRIPT_BYTES);
    if (!st) return null;
    const stamp = `${st.mtimeMs}:${st.size}`;
    const hit = this.maps.get(file);
    if (hit?.stamp === stamp) return hit.map;
    if (this.maps.size >= 2000) this.maps.clear();
    const map = loadMapFor(file).catch(() => null);
    this.maps.set(file, { stamp, map });
    return map;
  }

  clear(): void {
    this.maps.clear();
  }
}

const sharedCache = new SourceMapCache();

async function loadMapFor(file: string): Promise<LoadedMap | null> {
  const code = await readNamedText(file, { maxBytes: MAX_SCRIPT_BYTES });
  const ref = mapReference(code);
  let json: string | null = null;
  let mapUrl = pathToFileURL(file).href;
  if (ref?.startsWith('data:')) json = decodeDataUri(ref);
  else if (ref && (/^file:/i.test(ref) || !/^[a-z][a-z\d+.-]+:/i.test(ref))) {
    // Maps served over http(s) or named by bundler schemes (webpack://) are not ours to fetch.
    const mapPath = /^file:/i.test(ref) ? fileUrlToPathAnyOs(ref) : resolve(dirname(file), safeDecodeUri(ref));
    json = await readNamedText(mapPath, { maxBytes: MAX_MAP_BYTES }).catch(() => null);
    mapUrl = pathToFileURL(mapPath).href;
  } else if (!ref && existsSync(file + '.map')) {
    json = await readNamedText(file + '.map', { maxBytes: MAX_MAP_BYTES }).catch(() => null);
    mapUrl = pathToFileURL(file + '.map').href;
  }
  if (!json) return null;
  const raw = JSON.parse(json.replace(/^\)\]\}'[^\n]*\n/, '')) as { sections?: unknown; sources?: (string | null)[] };
  const map = raw.sections ? AnyMap(raw as never, mapUrl) : new TraceMap(raw as never, mapUrl);
  const paths = map.resolvedSources.map((s, i) => onDisk(s, map.sources[i]));
  return { map, paths };
}

function onDisk(resolved: string | null, raw: string | null): string | null {
  const candidates: string[] = [];
  if (resolved) candidates.push(fileUrlToPathAnyOs(resolved));
  if (raw && (isAbsolute(raw) || /^[a-z]:[\\/]/i.test(raw))) candidates.push(raw);
  for (const c of candidates) if (isAbsolute(c) && existsSync(c)) return c;
  return null;
}

const isEol = (c: number) => Number.isNaN(c) || c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const BLANKS = /[ \t]*/y;
const URL_CHARS = /[^\s'"]*/y;

/** Index of the first character at or after `i` that is not a space or tab. */
function skipBlanks(code: string, i: number): number {
  BLANKS.lastIndex = i;
  BLANKS.test(code);
  return BLANKS.lastIndex;
}

/** Whether `code` from `i` holds only `[ \t]*`, then `*\/` if `close`, then `[ \t]*` up to the end of the line. */
function restOfLineIs(code: string, i: number, close: boolean): boolean {
  i = skipBlanks(code, i);
  if (close && code.startsWith('*/', i)) i = skipBlanks(code, i + 2);
  return isEol(code.charCodeAt(i));
}

/**
 * The last `//# sourceMappingURL=` (or `/*# … *\/`, or the old `//@`) in a script: the comment ends its
 * line. Scanned by hand, in one pass over that line, because a regex for it backtracks over runs of
 * spaces (a 200 KB script took 49 s).
 */
export function mapReference(code: string): string | null {
  const KEY = 'sourceMappingURL=';
  const at = code.lastIndexOf(KEY);
  if (at < 0) return null;
  // Before the key: `//` or `/*`, then `#` or `@`, then at least one space or tab.
  let i = at - 1;
  const blank = (k: number) => code[k] === ' ' || code[k] === '\t';
  if (!blank(i)) return null;
  while (blank(i)) i--;
  if ((code[i] !== '#' && code[i] !== '@') || code[i - 2] !== '/' || (code[i - 1] !== '/' && code[i - 1] !== '*')) return null;
  const start = at + KEY.length;
  URL_CHARS.lastIndex = start;
  URL_CHARS.test(code);
  const end = URL_CHARS.lastIndex;
  if (end === start) return null;
  // As the comment's `*\/` may touch the URL, a URL ending in `*\/` is taken without it when that ends the line.
  if (end - start > 2 && code.startsWith('*/', end - 2) && restOfLineIs(code, end, false)) return code.slice(start, end - 2);
  return restOfLineIs(code, end, true) ? code.slice(start, end) : null;
}

function decodeDataUri(uri: string): string | null {
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const meta = uri.slice(5, comma);
  const body = uri.slice(comma + 1);
  return /;base64$/i.test(meta) ? Buffer.from(body, 'base64').toString('utf8') : safeDecodeUri(body);
}

function safeDecodeUri(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Original position of a 1-based generated (line, column); null unless the original is on disk. */
function mapPosition(m: LoadedMap, line: number, column: number): SourcePosition | null {
  const col = Math.max(0, column - 1);
  for (const bias of [GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND] as const) {
    const o = originalPositionFor(m.map, { line, column: col, bias });
    if (o.source === null) continue;
    const idx = m.map.resolvedSources.indexOf(o.source);
    const file = idx >= 0 ? m.paths[idx] : null;
    if (file) return { file, line: o.line, column: o.column + 1 };
    return null;
  }
  return null;
}

/** Original line of a generated line: the first mapped segment on it whose source is on disk. */
function mapLine(m: LoadedMap, line: number): { file: string; line: number } | null {
  const segs = decodedMappings(m.map)[line - 1];
  if (!segs) return null;
  for (const s of segs) {
    if (s.length < 4) continue;
    const file = m.paths[s[1]!];
    if (file) return { file, line: s[2]! + 1 };
  }
  return null;
}

function isMappable(f: Frame): boolean {
  return !!f.file && !f.generated && (f.category === 'app' || f.category === 'dependency') && isAbsolute(f.file);
}

/**
 * Rewrites JS frames to their original positions where a source map exists and the original
 * source is on disk; `generated` keeps where the code ran. Frame ids stay as they are, so the tree
 * and totals are untouched (two generated functions mapping to one place stay two frames).
 * Per-line hits move to the original lines.
 */
export async function applySourceMaps(profile: Profile, cache: SourceMapCache = sharedCache): Promise<void> {
  const files = new Set<string>();
  for (const f of profile.frames) if (isMappable(f)) files.add(f.file);
  for (const file of profile.lineHits.keys()) if (isAbsolute(file)) files.add(file);
  if (files.size === 0) return;
  const maps = new Map<string, LoadedMap>();
  await Promise.all(
    [...files].map(async (file) => {
      const m = await cache.get(file);
      if (m) maps.set(file, m);
    }),
  );
  if (maps.size === 0) return;

  for (let i = 0; i < profile.frames.length; i++) {
    const f = profile.frames[i];
    if (!isMappable(f)) continue;
    const m = maps.get(f.file);
    if (!m || f.line <= 0) continue;
    const o = mapPosition(m, f.line, f.column);
    if (!o) continue;
    const { category, pkg } = classifyJsFile(o.file);
    const next: Frame = { ...f, ...o, category, generated: { file: f.file, line: f.line, column: f.column } };
    if (pkg) next.pkg = pkg;
    else delete next.pkg;
    profile.frames[i] = next;
  }

  const remapped: LineHits = new Map();
  const add = (file: string, line: number, self: number, total: number) => {
    let lm = remapped.get(file);
    if (!lm) remapped.set(file, (lm = new Map()));
    const h = lm.get(line);
    if (h) {
      h.self += self;
      h.total += total;
    } else lm.set(line, { self, total });
  };
  for (const [file, lines] of profile.lineHits) {
    const m = maps.get(file);
    for (const [line, h] of lines) {
      const o = m ? mapLine(m, line) : null;
      if (o) add(o.file, o.line, h.self, h.total);
      else add(file, line, h.self, h.total);
    }
  }
  profile.lineHits.clear();
  for (const [k, v] of remapped) profile.lineHits.set(k, v);
}
