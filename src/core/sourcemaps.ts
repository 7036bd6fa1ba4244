import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AnyMap, decodedMappings, GREATEST_LOWER_BOUND, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { classifyJsFile, type Frame, type LineHits, type Profile, type SourcePosition } from './model';
import { fileUrlToPathAnyOs } from './paths';
import { readNamedText, readNamedTextSync, regularFile } from './namedFiles';
import {
  applyOverride,
  compileOverrides,
  DEFAULT_PATH_OVERRIDES,
  DEFAULT_RESOLVE_LOCATIONS,
  mapAllowed,
  type SourceMapOptions,
} from './sourceMapPaths';

export type { SourceMapOptions } from './sourceMapPaths';

/** Bundles bigger than this are not read for a map comment (inline maps make them large, not this large). */
const MAX_SCRIPT_BYTES = 256 * 1024 * 1024;
/** A map file a script names (its path is the script's choice, so it is read as untrusted). */
export const MAX_MAP_BYTES = 256 * 1024 * 1024;

/** A script's map as read: parsed once per script version, whatever the options it is later resolved with. */
export interface LoadedMap {
  map: TraceMap;
  /** The script's text, for the identifier a function's name stands at; absent for huge scripts and announced maps. */
  code?: string;
  lineStarts?: number[];
  /** The folder of the map file (of the script for an inline map). */
  mapDir?: string;
  /** A separate map file and its modification stamp when read: a rebuilt map is read again. */
  mapFile?: { path: string; stamp: string };
}

const stampOf = (st: { mtimeMs: number; size: number }) => `${st.mtimeMs}:${st.size}`;

/** Each source of a map as a file: on this disk, or only in the map's `sourcesContent`; null when neither. Found on first use (a bundle's map may list thousands). */
export interface ResolvedSources {
  file(i: number): string | null;
  onDisk(i: number): boolean;
}

/** Scripts up to this size keep their text for name lookups (minified bundles are one long line). */
const MAX_KEPT_CODE_CHARS = 32 * 1024 * 1024;

/**
 * Source maps per generated file, read and parsed once; a rebuilt script or map (new mtime or size)
 * is read again, since the extension host lives across edit → build → profile cycles.
 */
export class SourceMapCache {
  private readonly maps = new Map<string, { stamp: string; map: Promise<LoadedMap | null> }>();

  async get(file: string): Promise<LoadedMap | null> {
    if (!isAbsolute(file)) return null;
    const st = await regularFile(file, MAX_SCRIPT_BYTES);
    if (!st) return null;
    const stamp = stampOf(st);
    const hit = this.maps.get(file);
    if (hit?.stamp === stamp) {
      const m = await hit.map;
      const mapSt = m?.mapFile ? await regularFile(m.mapFile.path, MAX_MAP_BYTES) : undefined;
      if (!m?.mapFile || (mapSt && stampOf(mapSt) === m.mapFile.stamp)) return m;
    }
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

/** A map's JSON (a `)]}'` guard line allowed), indexed or not. */
export function parseMap(json: string, mapUrl: string): TraceMap {
  const raw = JSON.parse(json.replace(/^\)\]\}'[^\n]*\n/, '')) as { sections?: unknown };
  return raw.sections ? AnyMap(raw as never, mapUrl) : new TraceMap(raw as never, mapUrl);
}

async function loadMapFor(file: string): Promise<LoadedMap | null> {
  const code = await readNamedText(file, { maxBytes: MAX_SCRIPT_BYTES });
  const ref = mapReference(code);
  let json: string | null = null;
  let mapUrl = pathToFileURL(file).href;
  let mapPath: string | undefined;
  if (ref?.startsWith('data:')) json = decodeDataUri(ref);
  else if (ref && (/^file:/i.test(ref) || !/^[a-z][a-z\d+.-]+:/i.test(ref))) {
    // Maps served over http(s) or named by bundler schemes (webpack://) are not ours to fetch.
    mapPath = /^file:/i.test(ref) ? fileUrlToPathAnyOs(ref) : resolve(dirname(file), safeDecodeUri(ref));
  } else if (!ref && existsSync(file + '.map')) mapPath = file + '.map';
  let mapFile: LoadedMap['mapFile'];
  if (mapPath) {
    const st = await regularFile(mapPath, MAX_MAP_BYTES);
    json = st ? await readNamedText(mapPath, { maxBytes: MAX_MAP_BYTES }).catch(() => null) : null;
    mapUrl = pathToFileURL(mapPath).href;
    if (st) mapFile = { path: mapPath, stamp: stampOf(st) };
  }
  if (!json) return null;
  return {
    map: parseMap(json, mapUrl),
    code: code.length <= MAX_KEPT_CODE_CHARS ? code : undefined,
    mapDir: dirname(fileUrlToPathAnyOs(mapUrl)),
    mapFile,
  };
}

const isFile = (p: string) => isAbsolute(p) && !!statSync(p, { throwIfNoEntry: false })?.isFile();

/** Folders a bundler-relative source (`webpack://app/./src/x.ts`) may sit under: the map's folder and a few above it. */
function ancestors(dir: string, n: number): string[] {
  const out = [dir];
  for (let i = 0; i < n; i++) {
    const up = dirname(out[out.length - 1]);
    if (up === out[out.length - 1]) break;
    out.push(up);
  }
  return out;
}

/**
 * Where each source of a map is: the path overrides first (as the debugger applies them), then the
 * source as resolved against the map (`sourceRoot`, relative, absolute, `file://`), then a bundler URL's
 * path under the map's folder or above, each also through the path mapping. A source on no disk but
 * in `sourcesContent` keeps the path it would have, so reports name it and the editor shows its text.
 */
export function resolveSources(m: LoadedMap, opts: SourceMapOptions = {}): ResolvedSources {
  const overrides = compileOverrides(opts.pathOverrides ?? DEFAULT_PATH_OVERRIDES, opts.workspaceFolder ?? process.cwd());
  const map = m.map;
  const root = map.sourceRoot ?? '';
  const found = new Map<number, { file: string | null; onDisk: boolean }>();
  const one = (i: number): { file: string | null; onDisk: boolean } => {
    const raw = map.sources[i] ?? null;
    const resolved = map.resolvedSources[i] ?? null;
    const joined = raw === null ? null : root && !/^[a-z][\w+.-]*:/i.test(raw) && !isAbsolute(raw) ? root.replace(/\/?$/, '/') + raw : raw;
    const cands: string[] = [];
    const over =
      (joined !== null ? applyOverride(joined, overrides) : undefined) ?? (resolved ? applyOverride(resolved, overrides) : undefined);
    if (over) cands.push(over);
    const resolvedPath = resolved && /^file:/i.test(resolved) ? fileUrlToPathAnyOs(resolved) : undefined;
    if (resolvedPath) cands.push(resolvedPath);
    if (raw && (isAbsolute(raw) || /^[a-z]:[\\/]/i.test(raw))) cands.push(raw);
    const url = /^[a-z][\w+.-]*:\/\/[^/]*\/+(.*)$/i.exec(resolved ?? joined ?? '');
    if (url && !/^file:/i.test(resolved ?? joined ?? '') && m.mapDir) {
      const rest = safeDecodeUri(url[1])
        .replace(/^(?:\.\/)+/, '')
        .replace(/^~\//, 'node_modules/');
      if (rest && !rest.startsWith('../')) for (const d of ancestors(m.mapDir, 6)) cands.push(join(d, rest));
    }
    for (const c of cands) {
      if (isFile(c)) return { file: c, onDisk: true };
      const mapped = opts.mapPath?.(c);
      if (mapped && isFile(mapped)) return { file: mapped, onDisk: true };
    }
    const content = map.sourcesContent?.[i];
    if (typeof content === 'string') return { file: over ?? resolvedPath ?? joined ?? resolved, onDisk: false };
    return { file: null, onDisk: false };
  };
  const get = (i: number) => {
    let r = found.get(i);
    if (!r) found.set(i, (r = i >= 0 && i < map.sources.length ? one(i) : { file: null, onDisk: false }));
    return r;
  };
  return { file: (i) => get(i).file, onDisk: (i) => get(i).onDisk };
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

interface Mapped {
  m: LoadedMap;
  sources: ResolvedSources;
  /** Original texts (from the map or the disk) for anonymous functions' names, with their line offsets, once per source. */
  texts?: Map<number, { text: string; starts: number[] } | undefined>;
  /** Resolved source URL → its index (a bundle's map lists thousands). */
  sourceIndex?: Map<string, number>;
}

/**
 * Original position of a 1-based generated (line, column), with the name the map gives there; null unless the
 * source is on disk or in the map. Only a segment at or before the column counts: code before the first one on its
 * line (a bundler's wrapper, webpack's IIFE) belongs to no source and keeps its place in the bundle.
 */
function mapPosition(x: Mapped, line: number, column: number): (SourcePosition & { sourceIndex: number }) | null {
  const o = originalPositionFor(x.m.map, { line, column: Math.max(0, column - 1), bias: GREATEST_LOWER_BOUND });
  if (o.source === null) return null;
  if (!x.sourceIndex) {
    x.sourceIndex = new Map();
    x.m.map.resolvedSources.forEach((src, i) => x.sourceIndex!.has(src) || x.sourceIndex!.set(src, i));
  }
  const idx = x.sourceIndex.get(o.source) ?? -1;
  const file = idx >= 0 ? x.sources.file(idx) : null;
  return file ? { file, line: o.line, column: o.column + 1, sourceIndex: idx } : null;
}

/** Original line of a generated line: the first mapped segment on it whose source is known. */
function mapLine(x: Mapped, line: number): { file: string; line: number } | null {
  const segs = decodedMappings(x.m.map)[line - 1];
  if (!segs) return null;
  for (const s of segs) {
    if (s.length < 4) continue;
    const file = x.sources.file(s[1]!);
    if (file) return { file, line: s[2]! + 1 };
  }
  return null;
}

const IDENT = /^[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]*$/u;
/** How far before a function's start its name may stand (`const a = async function* (`). */
const NAME_WINDOW = 64;

/** The segment starting at a generated column (segments are sorted by it: a minified line has a million). */
function segmentAt<S extends readonly number[]>(segs: readonly S[], column: number): S | undefined {
  let lo = 0;
  let hi = segs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = segs[mid][0];
    if (c === column) return segs[mid];
    if (c < column) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Offset in the script's text of a 0-based column on a 1-based line; undefined without the text. */
function offsetOf(m: LoadedMap, line: number, column: number): number | undefined {
  const code = m.code;
  if (code === undefined) return undefined;
  m.lineStarts ??= lineStarts(code);
  const at = m.lineStarts[line - 1];
  return at === undefined ? undefined : at + column;
}

/**
 * The original name of a minified function: V8 names it by the identifier it was declared or assigned
 * with (`r` in `function r(`, `t` in `t=n=>`), and bundlers map that identifier with its name from
 * the source in the map's `names`. Looked up at the last such identifier before the function's start.
 */
function namesAt(x: Mapped, line: number, column: number, shortName: string): string | undefined {
  const segs = decodedMappings(x.m.map)[line - 1];
  const lineStart = offsetOf(x.m, line, 0);
  if (lineStart === undefined || !segs) return undefined;
  const code = x.m.code!;
  const start = Math.max(0, column - 1);
  const from = Math.max(0, start - NAME_WINDOW - shortName.length);
  // Only this window of a (possibly one-line, megabytes long) bundle is looked at.
  const before = code.slice(lineStart + from, lineStart + start);
  if (before.includes('\n')) return undefined;
  for (let i = before.lastIndexOf(shortName); i >= 0; i = i > 0 ? before.lastIndexOf(shortName, i - 1) : -1) {
    const at = from + i;
    const prev = code[lineStart + at - 1];
    const next = code[lineStart + at + shortName.length];
    if ((at > 0 && prev && /[\w$]/.test(prev)) || (next && /[\w$]/.test(next))) continue;
    const seg = segmentAt(segs, at);
    if (seg && seg.length === 5) return x.m.map.names[seg[4]];
    return undefined;
  }
  return undefined;
}

/**
 * The name an anonymous function had in the source: the identifier it is declared, assigned or
 * keyed by in the original text (`crunch(`, `spin = (`, `run: async (`), read from the file or `sourcesContent`.
 */
function enclosingName(x: Mapped, o: SourcePosition & { sourceIndex: number }): string | undefined {
  const at = originalLineAt(x, o);
  if (!at) return undefined;
  const { ln, col } = at;
  const head = ln.slice(0, col);
  // Maps put a function's start at its `function`, its name or its `(`: `function NAME(`, `NAME = (`, `NAME: function (`.
  const own = ownName(ln, col);
  if (own) return own;
  const m = /(?:^|[^\w$.])([\p{L}$_][\p{L}\p{N}$_]*)\s*(?:=|:)\s*(?:async\s*)?(?:function\s*\*?\s*)?$/u.exec(head);
  return m && !KEYWORDS.has(m[1]) ? m[1] : undefined;
}

/**
 * The name a `function` declaration or named expression has at its start in the original text (the map puts a
 * function's start at its `function`, or its name): `function inline(`, `async function* gen(`.
 */
function ownName(ln: string, col: number): string | undefined {
  const here = /^([\p{L}$_][\p{L}\p{N}$_]*)\s*\(/u.exec(ln.slice(col))?.[1];
  if (here && /(?:^|[^\w$])function\s*\*?\s*$/.test(ln.slice(0, col))) return here;
  return /^(?:async\s+)?function\s*\*?\s*([\p{L}$_][\p{L}\p{N}$_]*)\s*\(/u.exec(ln.slice(col))?.[1];
}

/** The original line a mapped position is on, and its 0-based column; undefined without the source text. */
function originalLineAt(x: Mapped, o: SourcePosition & { sourceIndex: number }): { ln: string; col: number } | undefined {
  x.texts ??= new Map();
  if (!x.texts.has(o.sourceIndex)) {
    let text: string | null | undefined = x.m.map.sourcesContent?.[o.sourceIndex];
    if (typeof text !== 'string' && x.sources.onDisk(o.sourceIndex)) {
      try {
        text = readNamedTextSync(o.file, MAX_KEPT_CODE_CHARS);
      } catch {
        text = undefined;
      }
    }
    x.texts.set(o.sourceIndex, typeof text === 'string' ? { text, starts: lineStarts(text) } : undefined);
  }
  const src = x.texts.get(o.sourceIndex);
  const at = src?.starts[o.line - 1];
  if (!src || at === undefined) return undefined;
  const next = src.starts[o.line];
  const ln = src.text.slice(at, next === undefined ? src.text.length : next - 1).replace(/\r$/, '');
  return { ln, col: Math.max(0, o.column - 1) };
}

const KEYWORDS = new Set(['case', 'default', 'return', 'export', 'const', 'let', 'var', 'new', 'typeof', 'await', 'yield']);

function originalName(x: Mapped, f: Frame, o: SourcePosition & { sourceIndex: number }): string | undefined {
  const anonymous = !f.name || f.name === '(anonymous)' || f.name === '(anonymous function)';
  const dot = f.name.lastIndexOf('.');
  const short = anonymous ? '' : f.name.slice(dot + 1);
  if (short && IDENT.test(short)) {
    const named = namesAt(x, f.line, f.column, short);
    if (named && named !== short) return dot >= 0 ? f.name.slice(0, dot + 1) + named : named;
    // V8 calls a function by its own name when it has one; another name is one it inferred from where the code was
    // put: terser inlines markdown-it's `function inline(state)` into `const _rules$2=[["inline",function(state){`,
    // which V8 calls `_rules$2` (as it does the array's other functions). Declared with a name at its original start,
    // the function is called that.
    const own = originalLineAt(x, o);
    const declared = own && ownName(own.ln, own.col);
    if (declared && declared !== short) return dot >= 0 ? f.name.slice(0, dot + 1) + declared : declared;
    return undefined;
  }
  return anonymous ? enclosingName(x, o) : undefined;
}

function isMappable(f: Frame): boolean {
  return !!f.file && !f.generated && (f.category === 'app' || f.category === 'dependency') && isAbsolute(f.file);
}

/**
 * Rewrites JS frames to their original positions and names where a source map exists and the
 * original source is on disk or in the map; `generated` keeps where the code ran. Frame ids stay as
 * they are, so the tree and totals are untouched (two generated functions mapping to one place stay
 * two frames). Per-line hits move to the original lines. Scripts outside `resolveLocations` keep theirs.
 */
export async function applySourceMaps(profile: Profile, cache: SourceMapCache = sharedCache, opts: SourceMapOptions = {}): Promise<void> {
  const locations = opts.resolveLocations === undefined ? DEFAULT_RESOLVE_LOCATIONS : opts.resolveLocations;
  const files = new Set<string>();
  for (const f of profile.frames) if (isMappable(f)) files.add(f.file);
  for (const file of profile.lineHits.keys()) if (isAbsolute(file)) files.add(file);
  for (const f of files) if (!mapAllowed(f, locations)) files.delete(f);
  if (files.size === 0) return;
  const maps = new Map<string, Mapped>();
  const resolvedOnce = new Map<LoadedMap, ResolvedSources>();
  await Promise.all(
    [...files].map(async (file) => {
      const m = await cache.get(file);
      if (!m) return;
      let sources = resolvedOnce.get(m);
      if (!sources) resolvedOnce.set(m, (sources = resolveSources(m, opts)));
      maps.set(file, { m, sources });
    }),
  );
  if (maps.size === 0) return;

  for (let i = 0; i < profile.frames.length; i++) {
    const f = profile.frames[i];
    if (!isMappable(f)) continue;
    const x = maps.get(f.file);
    if (!x || f.line <= 0) continue;
    const o = mapPosition(x, f.line, f.column);
    if (!o) continue;
    const { category, pkg } = classifyJsFile(o.file);
    const name = originalName(x, f, o) ?? f.name;
    const next: Frame = {
      ...f,
      name,
      file: o.file,
      line: o.line,
      column: o.column,
      category,
      generated: { file: f.file, line: f.line, column: f.column },
    };
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
    const x = maps.get(file);
    for (const [line, h] of lines) {
      const o = x ? mapLine(x, line) : null;
      if (o) add(o.file, o.line, h.self, h.total);
      else add(file, line, h.self, h.total);
    }
  }
  profile.lineHits.clear();
  for (const [k, v] of remapped) profile.lineHits.set(k, v);
}

/** The text of a map's source that is not on disk, for a read-only editor: found by the path reports give it. */
export async function sourceContentOf(
  generatedFile: string,
  file: string,
  opts: SourceMapOptions = {},
  cache: SourceMapCache = sharedCache,
): Promise<string | undefined> {
  const m = await cache.get(generatedFile);
  if (!m) return undefined;
  const sources = resolveSources(m, opts);
  for (let i = 0; i < m.map.sources.length; i++) {
    const text = m.map.sourcesContent?.[i];
    if (typeof text === 'string' && sources.file(i) === file) return text;
  }
  return undefined;
}
