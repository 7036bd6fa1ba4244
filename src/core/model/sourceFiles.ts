/**
 * Matching the file names a profile recorded to files open in an editor. Profiles come from other
 * machines and platforms (a container's `/app`, a Windows `C:\…`, `file://` URLs), so an exact match
 * is tried first and then the longest common tail of path segments.
 */

/** Windows and macOS file systems are case-insensitive by default; Linux is not. */
export function caseInsensitiveFs(platform: string): boolean {
  return platform === 'win32' || platform === 'darwin';
}

/** `file:///C:/x%20y/a.js` → `C:/x y/a.js`; other strings unchanged. */
export function fileUrlToPathLoose(p: string): string {
  if (!/^file:\/\//i.test(p)) return p;
  let rest = p.slice(7);
  // file://host/share/x is a UNC path; file:///x has an empty host.
  if (!rest.startsWith('/')) rest = `//${rest}`;
  try {
    rest = decodeURIComponent(rest);
  } catch {
    // A malformed escape: keep the raw text rather than fail the whole match.
  }
  if (/^\/[A-Za-z]:[\\/]/.test(rest)) rest = rest.slice(1);
  return rest;
}

/** One spelling per file: forward slashes, no `.` segments or doubled slashes, folded case where the FS folds it. */
export function pathKey(p: string, caseInsensitive: boolean): string {
  let s = fileUrlToPathLoose(p).replace(/\\/g, '/');
  const unc = s.startsWith('//');
  s = s
    .replace(/\/{2,}/g, '/')
    .replace(/(^|\/)\.(?=\/|$)/g, '$1')
    .replace(/\/{2,}/g, '/');
  if (s.length > 1 && s.endsWith('/')) s = s.slice(0, -1);
  if (unc) s = `/${s}`;
  // Drive letters differ in case between tools (c:\ vs C:\) even on one machine.
  if (/^[a-z]:\//i.test(s)) s = s[0].toUpperCase() + s.slice(1);
  return caseInsensitive ? s.toLowerCase() : s;
}

function segments(key: string): string[] {
  return key.split('/').filter((x) => x.length > 0);
}

export interface MatchOptions {
  /**
   * True when the profile's own path exists on this machine. A file that exists is a different file
   * from the one in the editor, so a tail-only match to it would annotate the wrong code.
   */
  exists?: (profilePath: string) => boolean;
  /**
   * Resolves symbolic links (e.g. `fs.realpathSync.native`). Node records a program by its real path,
   * while the editor shows it under the (symlinked) folder that was opened, or the other way round
   * with --preserve-symlinks; both spellings of a file then match. May throw for a path that is not there.
   */
  realpath?: (p: string) => string;
}

/** Finds, for an editor file, the profile's name for it. Build once per profile, query per document. */
export class SourceFileMatcher {
  private readonly exact = new Map<string, string>();
  private readonly byBase = new Map<string, Array<{ file: string; segs: string[] }>>();
  /** Profile files whose real path differs from their name, by the key of the real path; built on first need. */
  private byRealPath: Map<string, string> | undefined;

  constructor(
    files: Iterable<string>,
    private readonly caseInsensitive: boolean,
  ) {
    for (const file of files) {
      if (!file) continue;
      const key = pathKey(file, caseInsensitive);
      if (!this.exact.has(key)) this.exact.set(key, file);
      const segs = segments(key);
      const base = segs[segs.length - 1];
      if (!base) continue;
      let list = this.byBase.get(base);
      if (!list) this.byBase.set(base, (list = []));
      list.push({ file, segs });
    }
  }

  /** The profile's file name for `docPath`, or undefined when none (or more than one equally) fits. */
  match(docPath: string, opts: MatchOptions = {}): string | undefined {
    const key = pathKey(docPath, this.caseInsensitive);
    const hit = this.exact.get(key);
    if (hit !== undefined) return hit;
    if (opts.realpath) {
      const viaLinks = this.matchRealPath(docPath, opts.realpath);
      if (viaLinks !== undefined) return viaLinks;
    }
    const segs = segments(key);
    const candidates = this.byBase.get(segs[segs.length - 1] ?? '');
    if (!candidates) return undefined;
    let best: string | undefined;
    let bestLen = 0;
    let tie = false;
    for (const c of candidates) {
      if (opts.exists?.(c.file)) continue;
      let n = 0;
      while (n < c.segs.length && n < segs.length && c.segs[c.segs.length - 1 - n] === segs[segs.length - 1 - n]) n++;
      if (n > bestLen) {
        best = c.file;
        bestLen = n;
        tie = false;
      } else if (n === bestLen) tie = true;
    }
    if (tie || !best) return undefined;
    // A bare file name (`app.js`) only counts when no other profile file shares it.
    if (bestLen < 2 && candidates.length > 1) return undefined;
    return best;
  }

  private matchRealPath(docPath: string, realpath: (p: string) => string): string | undefined {
    const real = (p: string) => {
      try {
        return realpath(p);
      } catch {
        return p;
      }
    };
    const key = pathKey(real(docPath), this.caseInsensitive);
    const hit = this.exact.get(key);
    if (hit !== undefined) return hit;
    if (!this.byRealPath) {
      this.byRealPath = new Map();
      for (const file of this.exact.values()) {
        const r = real(file);
        if (r === file) continue;
        const k = pathKey(r, this.caseInsensitive);
        if (!this.byRealPath.has(k)) this.byRealPath.set(k, file);
      }
    }
    return this.byRealPath.get(key);
  }
}
