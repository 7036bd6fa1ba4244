import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LineHits, Profile } from './model';

/** Like js-debug's `remoteRoot`/`localRoot`: files under `remoteRoot` in the profiled process live under `localRoot` here. */
export interface PathMappingRule {
  remoteRoot: string;
  localRoot: string;
}

export interface PathMapperOptions {
  /** Explicit rules (`nodeFlame.pathMapping`), as a list or as `{ "/app": "${workspaceFolder}" }`. */
  rules?: PathMappingRule[] | Record<string, string>;
  /** Folders searched for a workspace-relative suffix of the remote path (`/app/src/x.js` → `<root>/src/x.js`). */
  roots?: string[];
  exists?: (path: string) => boolean;
}

/** Returns the local path for a profile's file, or undefined when it needs no change or matches nothing. */
export type PathMapper = (file: string) => string | undefined;

/** A loop, not /\/+$/: that one retries from every slash of a long run of them (quadratic). */
function trimSlash(s: string): string {
  if (s.length <= 1) return s;
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** `file:///app/x.js`, `/app/x.js`, `C:\app\x.js` → `/app/x.js` / `C:/app/x.js`; undefined for non-file URLs and core modules. */
export function remotePathOf(file: string): string | undefined {
  if (!file) return undefined;
  if (/^file:\/\//i.test(file)) {
    try {
      return fileURLToPath(file).replace(/\\/g, '/');
    } catch {
      // A Windows file URL on a POSIX host (or the reverse): take the path part by hand.
      return decodeURIComponent(file.replace(/^file:\/\/[^/]*/i, '')).replace(/^\/([a-z]:)/i, '$1');
    }
  }
  const p = file.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[a-z]:\//i.test(p)) return p;
  return undefined; // node:fs, internal/…, http://…, webpack://…
}

function normalizeRules(rules: PathMapperOptions['rules']): PathMappingRule[] {
  const list = Array.isArray(rules) ? rules : Object.entries(rules ?? {}).map(([remoteRoot, localRoot]) => ({ remoteRoot, localRoot }));
  return list
    .filter((r) => r && typeof r.remoteRoot === 'string' && typeof r.localRoot === 'string' && r.remoteRoot && r.localRoot)
    .map((r) => ({ remoteRoot: trimSlash(r.remoteRoot.replace(/\\/g, '/')), localRoot: r.localRoot }))
    .sort((a, b) => b.remoteRoot.length - a.remoteRoot.length);
}

function under(p: string, root: string): string | undefined {
  const ci = /^[a-z]:/i.test(root); // Windows drive paths compare case-insensitively
  const a = ci ? p.toLowerCase() : p;
  const b = ci ? root.toLowerCase() : root;
  if (b === '/') return p.slice(1);
  if (a === b) return '';
  if (a.startsWith(b + '/')) return p.slice(root.length + 1);
  return undefined;
}

/**
 * Maps paths of a process that ran elsewhere (a container, another machine) to the workspace:
 * explicit rules first, then the longest suffix of the remote path that exists under a root. A
 * prefix found that way (`/app` → workspace) is remembered, so files in the same tree map alike.
 */
export function createPathMapper(opts: PathMapperOptions): PathMapper {
  const rules = normalizeRules(opts.rules);
  const roots = opts.roots ?? [];
  const exists = opts.exists ?? existsSync;
  const learned: PathMappingRule[] = [];
  const cache = new Map<string, string | undefined>();

  const byRules = (p: string, list: PathMappingRule[], mustExist: boolean): string | undefined => {
    for (const r of list) {
      const rest = under(p, r.remoteRoot);
      if (rest === undefined) continue;
      const local = rest ? join(r.localRoot, ...rest.split('/')) : r.localRoot;
      if (!mustExist || exists(local)) return local;
    }
    return undefined;
  };

  const bySuffix = (p: string): string | undefined => {
    const all = p.split('/').filter(Boolean);
    const drive = /^[a-z]:$/i.test(all[0] ?? '') ? 1 : 0;
    const segs = all.slice(drive);
    // A bare file name is too weak a match inside dependency trees or deep system folders.
    const minKept = p.includes('/node_modules/') || segs.length > 4 ? 2 : 1;
    for (let drop = 0; drop <= segs.length - minKept; drop++) {
      const tail = segs.slice(drop);
      for (const root of roots) {
        const local = join(root, ...tail);
        if (!exists(local)) continue;
        const prefix = all.slice(0, drive + drop).join('/');
        const remoteRoot = drive ? prefix : '/' + prefix;
        if (drop > 0 && !learned.some((r) => r.remoteRoot === remoteRoot)) {
          learned.push({ remoteRoot, localRoot: root });
          learned.sort((a, b) => b.remoteRoot.length - a.remoteRoot.length);
        }
        return local;
      }
    }
    return undefined;
  };

  return (file: string) => {
    if (cache.has(file)) return cache.get(file);
    const p = remotePathOf(file);
    let local: string | undefined;
    if (p) {
      local = byRules(p, rules, false);
      if (local === undefined) {
        // The file is here already (a local process): keep it as it is, only turn a URL into a path.
        if (isAbsolute(p) && exists(p)) local = /^file:/i.test(file) ? join(p) : undefined;
        else local = byRules(p, learned, true) ?? bySuffix(p);
      }
    }
    cache.set(file, local);
    return local;
  };
}

function rekeyLineHits(hits: LineHits, map: PathMapper): void {
  for (const [file, lines] of [...hits]) {
    const to = map(file);
    if (!to || to === file) continue;
    hits.delete(file);
    const into = hits.get(to);
    if (!into) {
      hits.set(to, lines);
      continue;
    }
    for (const [line, h] of lines) {
      const cur = into.get(line);
      if (cur) {
        cur.self += h.self;
        cur.total += h.total;
      } else into.set(line, { ...h });
    }
  }
}

/** Rewrites a profile's frame files (and generated positions) and line hits to local paths; returns remote → local for what changed. */
export function mapProfilePaths(profile: Profile, map: PathMapper): Map<string, string> {
  const changed = new Map<string, string>();
  const one = (file: string) => {
    const to = map(file);
    if (to && to !== file) changed.set(file, to);
    return to && to !== file ? to : file;
  };
  for (const f of profile.frames) {
    f.file = one(f.file);
    if (f.generated) f.generated.file = one(f.generated.file);
  }
  rekeyLineHits(profile.lineHits, map);
  return changed;
}
