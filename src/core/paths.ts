/**
 * A `file://` URL as a plain path in the convention of the OS that wrote it, whatever OS reads it:
 * profiles recorded on Windows are opened on Linux and the other way round, so `node:url` (which
 * follows the host OS) does not fit. Anything that is not a `file:` URL comes back unchanged.
 *
 *   file:///home/a%20b/x.js   → /home/a b/x.js
 *   file:///C:/work/x.js      → C:\work\x.js
 *   file://server/share/x.js  → \\server\share\x.js
 */
export function fileUrlToPathAnyOs(url: string): string {
  if (!/^file:/i.test(url)) return url;
  let rest = url.slice(5);
  let host = '';
  if (rest.startsWith('//')) {
    rest = rest.slice(2);
    const slash = rest.indexOf('/');
    host = slash < 0 ? rest : rest.slice(0, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
  }
  // indexOf, not /[?#].*$/: that retries from every `?` or `#` of a long run (quadratic).
  const q = rest.search(/[?#]/);
  if (q >= 0) rest = rest.slice(0, q);
  const decoded = safeDecode(rest);
  // `/C:/x` or `/C|/x` (old style) is a drive path.
  const drive = /^\/?([a-z])[:|](\/|$)(.*)$/i.exec(decoded);
  if (drive && (!host || host.toLowerCase() === 'localhost')) {
    return `${drive[1].toUpperCase()}:\\${drive[3].replace(/\//g, '\\')}`;
  }
  if (host && host.toLowerCase() !== 'localhost') {
    return `\\\\${safeDecode(host)}${decoded.replace(/\//g, '\\')}`;
  }
  return decoded || '/';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // A stray `%` is more likely part of a real name than an escape.
    return s.replace(/%([0-9a-f]{2})/gi, (m, h: string) => {
      const c = parseInt(h, 16);
      return c < 0x80 ? String.fromCharCode(c) : m;
    });
  }
}

/** True for `/x`, `C:\x`, `C:/x` and `\\server\share`: paths that can point at a file on some disk. */
export function isAbsoluteAnyOs(p: string): boolean {
  return p.startsWith('/') || /^[a-z]:[\\/]/i.test(p) || p.startsWith('\\\\');
}
