// A child forked with its own execArgv loses the profiler flags its parent got from the `node` shim or the command
// line: vitest's forks pool (tinypool) forks `process.execPath` with `execArgv: ['--conditions', 'node', …]`, so its
// test processes ran without --prof / --perf-prof and their JavaScript was never named in those modes. The preload
// puts the run's flags back in front of such an execArgv (and, in a program run, where no NODE_OPTIONS carries it,
// the preload itself). --prof is refused in NODE_OPTIONS, so this is the only way.
// The module object itself (a namespace import is a copy under the bundler): fork is replaced on it.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/** The run's profiler flags for node (JSON array of strings), set by the launcher for every process of the run. */
export const NODE_FLAGS_ENV = 'NODE_FLAME_NODE_FLAGS';

/**
 * `execArgv` with the run's `flags` it lacks in front; the same array when it lacks none. A flag is there when the
 * child has it as written, or its value as a word of its own (`-r <preload>` for `--require=<preload>`); a child's
 * own `--logfile` is kept.
 */
export function withRunFlags(execArgv: readonly string[], flags: readonly string[]): readonly string[] {
  const has = (f: string): boolean => {
    if (execArgv.includes(f)) return true;
    const eq = f.indexOf('=');
    if (eq < 0) return false;
    const name = f.slice(0, eq);
    return execArgv.includes(f.slice(eq + 1)) || (name === '--logfile' && execArgv.some((a) => a.startsWith('--logfile')));
  };
  const missing = flags.filter((f) => !has(f));
  return missing.length ? [...missing, ...execArgv] : execArgv;
}

function runFlags(): string[] {
  try {
    const v = JSON.parse(process.env[NODE_FLAGS_ENV] ?? '[]') as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : [];
  } catch {
    return [];
  }
}

let patched = false;

/** The options object of a spawn-like call's arguments (the first object after the file that is not an array). */
function optionsAt(args: unknown[]): number {
  return args.findIndex((a, k) => k > 0 && a !== null && typeof a === 'object' && !Array.isArray(a));
}

type Launcher = (...a: unknown[]) => unknown;

/**
 * `spawn`-like functions (file, [args], [options]) that start this very node (`process.execPath`) get the run's flags
 * in front of their arguments: `execFileSync(process.execPath, [script])` was recorded but not profiled under --prof
 * and perf. Not through a shell (the flags would be split again), nor another executable.
 */
function withFlagsForNode(launch: Launcher, flags: readonly string[]): Launcher {
  return function (this: unknown, ...args: unknown[]) {
    const o = optionsAt(args);
    const options = o > 0 ? (args[o] as { shell?: unknown }) : undefined;
    if (args[0] === process.execPath && !options?.shell) {
      if (Array.isArray(args[1])) args[1] = withRunFlags(args[1] as string[], flags);
      else args.splice(1, 0, [...flags]);
    }
    return launch.apply(this, args);
  };
}

/**
 * Makes `child_process.fork` with an explicit execArgv, and `spawn`, `spawnSync`, `execFile`, `execFileSync` of
 * `process.execPath`, start their child with the run's profiler flags.
 */
export function keepFlagsInForks(): void {
  const flags = runFlags();
  if (!flags.length || patched) return;
  patched = true;
  const fork = childProcess.fork;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    // fork(module, [args], [options]): the options object is the last object argument that is not an array.
    const i = optionsAt(args);
    const options = i > 0 ? (args[i] as childProcess.ForkOptions) : undefined;
    // Only this node: another executable (options.execPath) may not take node's flags.
    if (options && Array.isArray(options.execArgv) && (options.execPath === undefined || options.execPath === process.execPath))
      args[i] = { ...options, execArgv: withRunFlags(options.execArgv, flags) };
    return (fork as (...a: unknown[]) => childProcess.ChildProcess).apply(this, args);
  } as typeof childProcess.fork;
  const cp = childProcess as unknown as Record<string, Launcher>;
  cp.fork = wrapped as unknown as Launcher;
  // The preload reaches those children through NODE_OPTIONS already (and without the run's environment, it would do
  // nothing): only the flags NODE_OPTIONS refuses are added.
  const profiler = flags.filter((f) => !f.startsWith('--require'));
  if (profiler.length)
    for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) cp[name] = withFlagsForNode(cp[name], profiler);
  // ESM imports of node:child_process (tinypool's `import { fork }`) see the new exports only after this.
  syncBuiltinESMExports();
}
