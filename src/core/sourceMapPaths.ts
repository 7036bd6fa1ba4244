import { isAbsolute, normalize } from 'node:path';
import minimatch from 'minimatch';

/**
 * Where a map's sources live and which maps are read, with the settings VS Code's JavaScript debugger
 * has (`sourceMapPathOverrides`, `resolveSourceMapLocations`), so a launch configuration's values carry over.
 */
export interface SourceMapOptions {
  /** Left: a source as the map writes it (`sourceRoot` + source), `*` captured, `?:*` matched only; right: a path, `*` the capture. */
  pathOverrides?: Record<string, string>;
  /** Globs a generated script must match for its map to be read; `!` excludes; null or empty: every script. */
  resolveLocations?: string[] | null;
  /** `${workspaceFolder}` in the overrides (the CLI's current folder when not given). */
  workspaceFolder?: string;
  /** A remote path (a container's, a server's) to the local one, or undefined. */
  mapPath?: (p: string) => string | undefined;
}

/** The JavaScript debugger's defaults. */
export const DEFAULT_PATH_OVERRIDES: Readonly<Record<string, string>> = {
  'webpack://?:*/*': '${workspaceFolder}/*',
  'webpack:///./~/*': '${workspaceFolder}/node_modules/*',
  'meteor://💻app/*': '${workspaceFolder}/*',
};
export const DEFAULT_RESOLVE_LOCATIONS: readonly string[] = ['**', '!**/node_modules/**'];

export interface PathOverride {
  from: RegExp;
  to: string;
}

const escapeRe = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** Longest pattern first, so `webpack:///./~/*` wins over `webpack://?:*\/*` where both match. */
export function compileOverrides(overrides: Record<string, string>, workspaceFolder: string): PathOverride[] {
  const ws = workspaceFolder.replace(/\\/g, '/');
  return Object.entries(overrides)
    .filter(([from, to]) => typeof from === 'string' && typeof to === 'string' && from.length > 0)
    .sort((a, b) => b[0].length - a[0].length)
    .map(([from, to]) => {
      const body = from
        .split('?:*')
        .map((part) => part.split('*').map(escapeRe).join('(.*)'))
        .join('.*?');
      return { from: new RegExp(`^${body}$`, 'i'), to: to.replace(/\$\{workspaceFolder\}/g, ws) };
    });
}

/** The override a source matches, applied; undefined when none matches. */
export function applyOverride(source: string, overrides: readonly PathOverride[]): string | undefined {
  for (const o of overrides) {
    const m = o.from.exec(source);
    if (!m) continue;
    let i = 1;
    const out = o.to.replace(/\*/g, () => m[i++] ?? '');
    // `webpack:///C:/app/x.ts` style overrides yield a drive path after a slash.
    const p = out.replace(/^\/([a-z]:[\\/])/i, '$1');
    return isAbsolute(p) || /^[a-z]:[\\/]/i.test(p) ? normalize(p) : p;
  }
  return undefined;
}

/** Longer paths cannot name a file (PATH_MAX), and a glob over one costs time for nothing: a damaged profile's names. */
const MAX_PATH_CHARS = 4096;
const compiled = new Map<string, RegExp | null>();

/** A glob as one regular expression, compiled once: minimatch's own matcher recurses per path segment (11 s on 50 000 of them). */
function globRe(pattern: string, nocase: boolean): RegExp | null {
  const key = `${nocase ? 'i' : 's'}:${pattern}`;
  let re = compiled.get(key);
  if (re === undefined) {
    re = minimatch.makeRe(pattern.replace(/\\/g, '/'), { dot: true, nocase }) || null;
    if (compiled.size > 256) compiled.clear();
    compiled.set(key, re);
  }
  return re;
}

/** Whether a script's map may be read under `resolveLocations` (js-debug's rule: some pattern matches, no `!` pattern does). */
export function mapAllowed(file: string, patterns: readonly string[] | null | undefined): boolean {
  if (file.length > MAX_PATH_CHARS) return false;
  if (!patterns || patterns.length === 0) return true;
  const p = file.replace(/\\/g, '/');
  const nocase = /^[a-z]:\//i.test(p);
  let included = false;
  for (const pat of patterns) {
    if (typeof pat !== 'string' || !pat) continue;
    if (pat.startsWith('!')) {
      if (globRe(pat.slice(1), nocase)?.test(p)) return false;
    } else if (!included && globRe(pat, nocase)?.test(p)) included = true;
  }
  return included;
}

/** A key that tells option sets apart in the map cache (functions are compared by identity elsewhere). */
export function optionsKey(o: SourceMapOptions): string {
  return JSON.stringify([o.pathOverrides ?? null, o.workspaceFolder ?? null]);
}
