// No node:path: the offline page's bundle reaches this module through embed.ts.
const basename = (p: string) => p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
/** True for a path naming a file system root (`/`, `C:\\`) or nothing. */
const isFsRoot = (p: string) => /^(?:[A-Za-z]:)?[\\/]*$/.test(p);

/**
 * What a page sent to others may say about the machine it was made on (issue 37, item 19): the command the
 * user ran, without the environment it ran in or the flags and paths the launcher added to it, and paths
 * relative to the app's folder (or `~` for the home directory) instead of absolute ones.
 */

/** `NAME=value` words of a command line (a perf run's `env PATH=…`), and the `env` that sets them. */
const ENV_WORDS = /(^|\s)(?:env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s*)+/g;
export const stripEnv = (command: string) => command.replace(ENV_WORDS, '$1').trim();

/** The launcher's preload bundle, wherever the extension or the CLI is installed (frame.ts classifies it the same way). */
const PRELOAD_PATH = /(?:file:\/\/)?(?:[A-Za-z]:)?[^\s"'`=]*[\\/]dist[\\/]preload-stop\.js/g;
const PRELOAD_NAME = 'node-flame/preload-stop.js';
/** Flags the launcher gives node in each mode (launch/command.ts, launch/perf.ts); `--logfile=` and `--cpu-prof-dir=` name the run folder. */
const LAUNCHER_FLAGS = new Set(['--prof', '--perf-basic-prof', '--perf-prof', '--interpreted-frames-native-stack', '--cpu-prof']);
const LAUNCHER_VALUE_FLAGS = /^--(?:logfile|cpu-prof-dir)=/;
const isPreload = (w: string) => /[\\/]dist[\\/]preload-stop\.js$/.test(w);
const isNode = (w: string) => /^node(?:js)?(?:\.exe)?$/i.test(basename(w));

/** The command as the user typed it: no environment words, no `perf record … --` around it, none of the launcher's node flags. */
export function userCommand(command: string): string {
  let words = stripEnv(command).split(/\s+/).filter(Boolean);
  if (words.length > 1 && basename(words[0]) === 'perf' && words[1] === 'record' && words.includes('--')) {
    words = stripEnv(words.slice(words.indexOf('--') + 1).join(' '))
      .split(/\s+/)
      .filter(Boolean);
  }
  if (!words.length || !isNode(words[0])) return words.join(' ');
  const out = [words[0]];
  let i = 1;
  // Only node's own options, up to the script: the app's arguments are its own.
  for (; i < words.length && words[i].startsWith('-'); i++) {
    const w = words[i];
    if (LAUNCHER_FLAGS.has(w) || LAUNCHER_VALUE_FLAGS.test(w)) continue;
    if ((w === '-r' || w === '--require') && i + 1 < words.length && isPreload(words[i + 1])) {
      i++;
      continue;
    }
    if (w.startsWith('--require=') && isPreload(w.slice('--require='.length))) continue;
    out.push(w);
  }
  return [...out, ...words.slice(i)].join(' ');
}

/**
 * The folder a profile's paths are shown relative to: the app's folder of a run (`<app>/.nodeflame/<run>`),
 * else `fallback` (the CLI's working directory, the editor's workspace folder). Never a file system root.
 */
export function shareRoot(source: string | undefined, fallback?: string): string | undefined {
  const at = source ? source.search(/[\\/]\.nodeflame[\\/]/) : -1;
  const root = at > 0 ? source!.slice(0, at) : fallback;
  return root && !isFsRoot(root) ? root.replace(/[\\/]+$/, '') : undefined;
}

/** Rewrites a string for sharing: the preload's path named, `root/` left out, `home/` as `~/`. */
export function sharePaths(root: string | undefined, home: string | undefined): (s: string) => string {
  const homeOk = home && !isFsRoot(home) ? home.replace(/[\\/]+$/, '') : undefined;
  const sep = /^[A-Za-z]:\\/.test(root ?? home ?? '') ? '\\' : '/';
  return (s) => {
    if (s.length < 2 || !/[\\/]/.test(s)) return s;
    let r = s.replace(PRELOAD_PATH, PRELOAD_NAME);
    if (root) r = r === root ? '.' : r.split(`file://${root}${sep}`).join('').split(`${root}${sep}`).join('');
    if (homeOk) r = r === homeOk ? '~' : r.split(`${homeOk}${sep}`).join(`~${sep}`);
    return r;
  };
}

/** `value` with every string rewritten by `fix`, except under the keys in `skip` (packed data, the page's own strings). */
export function rewriteStrings<T>(value: T, fix: (s: string) => string, skip: ReadonlySet<string>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.length && typeof v[0] === 'number' ? v : v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = skip.has(k) ? x : walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
