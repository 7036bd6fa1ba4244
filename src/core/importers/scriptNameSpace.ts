/** Where a script name can start after a space: paths, URLs, `node:` modules. */
const FILE_START_AT = /(?:\/|node:|file:|https?:|[a-zA-Z]:[\\/]|\\\\|internal\/|evalmachine|webpack)/y;

/**
 * The space between the name and the script in V8's `name script:line:col` (tick logs, perf maps), whose `:line`
 * colon is at `colon`. Both can hold spaces (`get x`, `/home/me/My Projects/app.js`), so it is the first space
 * followed by something that starts like a script name, after any line break (a name may hold one, a path not);
 * else the last space before the colon. -1: none.
 */
export function scriptNameSpace(s: string, colon: number): number {
  const lineBreak = Math.max(
    s.lastIndexOf('\n', colon),
    s.lastIndexOf('\r', colon),
    s.lastIndexOf('\u2028', colon),
    s.lastIndexOf('\u2029', colon),
  );
  for (let i = s.indexOf(' ', lineBreak + 1); i >= 0 && i < colon; i = s.indexOf(' ', i + 1)) {
    FILE_START_AT.lastIndex = i + 1;
    if (FILE_START_AT.test(s)) return i;
  }
  return colon > 0 ? s.lastIndexOf(' ', colon - 1) : -1;
}
