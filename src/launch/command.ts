import { join } from 'node:path';
import type { LaunchMode } from './run/modes';
import type { LaunchTarget } from './target';
import { hasLoader, isTypeScriptFile } from './commandLine';
import { PERF_NODE_FLAGS, perfRecordArgs, perfRecordCommand, perfWorkload } from './perf';
import { nodeOptionsWithPreload, pathWithFirst, writeNodeShim } from './nodeShim';
import { RUN_DIR_ENV } from './run/processRecords';
import { LAUNCHER_ENV, launcherToken } from './run/runLiveness';
import { CPU_PROF_ENV } from './preload/cpuProfile';
import { LIVE_ENV } from './run/cpuChunks';
import { NODE_FLAGS_ENV } from './preload/forkFlags';
import { HEAP_PROF_ENV, heapProfEnvValue, type HeapSamples } from './preload/heapProfile';
import { REQUESTS_ENV } from './preload/requests';

export interface BuildOptions {
  target: LaunchTarget;
  mode: LaunchMode;
  runDir: string;
  /** dist/preload-stop.js: turns SIGINT/SIGTERM into process.exit() so the profile is written. */
  preloadPath: string;
  /** The node executable to run. */
  node: string;
  /**
   * The node executable by its path, for the `node` shim of a plain program's prof or perf run (a bare name would find
   * the shim itself on PATH); without it, no shim.
   */
  shimNode?: string;
  /** TypeScript loader args for a .ts program (see loader.ts). */
  loader?: string[];
  perfPath?: string;
  perfFrequency?: number;
  /** Heap mode: bytes between samples, and whether samples of collected objects are kept. */
  heapInterval?: number;
  heapSamples?: HeapSamples;
  /** False: the preload records no HTTP request (nodeFlame.trackRequests, `--no-requests`). */
  trackRequests?: boolean;
  /** Watched live: the preload writes its profile in chunks as it goes (run/cpuChunks.ts), perf streams its recording (perfStream.ts). */
  live?: boolean;
}

export interface LaunchCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Node args we run with, ours and the user's (also inside `args`). */
  nodeArgs: string[];
  /** The `node` shim folder of a command run, removed once the run ends. */
  shimDir?: string;
  /** A live perf run: the file perf's stdout goes to (perf writes its recording there, `-o -`). */
  stdoutFile?: string;
  /** The command line run.json keeps, when it is not `command` and `args`: node as the run named it (see plainRunShim). */
  recorded?: string[];
}

/** `--logfile`'s value: V8 expands `%p` (pid) and `%t` (time) in it, and reads `%%` as one `%`. */
export function logfileArg(path: string): string {
  return `--logfile=${path.replace(/%/g, '%%')}`;
}

/** Flags that make node write the mode's raw profile into the run folder, whatever the app's cwd. */
export function profilerNodeArgs(mode: LaunchMode, runDir: string): string[] {
  switch (mode) {
    case 'prof':
      // V8 prefixes the file name with isolate-<address>-<pid>-<id>-, one file per isolate (worker threads).
      return ['--prof', logfileArg(join(runDir, 'v8.log'))];
    case 'cpu-prof':
      // The preload profiles in-process (preloadCpuProfile.ts): a `--cpu-prof` file is lost when a signal ends the process.
      return [];
    case 'perf':
      // --perf-basic-prof also opens V8's event log (no ticks, heap chunks only), by default in the
      // app's cwd; it goes to the run folder instead and is removed after the run (see perfSideLogs).
      return [...PERF_NODE_FLAGS, logfileArg(join(runDir, PERF_SIDE_LOG))];
    case 'heap':
      // The preload samples in-process (preloadHeapProfile.ts): --heap-prof cannot keep collected objects' samples.
      return [];
  }
}

/** Base name of the V8 event log a perf run writes as a side effect; V8 prefixes it with isolate-<address>-<pid>-. */
export const PERF_SIDE_LOG = 'perf-side-v8events.txt';

/** The side logs of a perf run among a run folder's file names. */
export function perfSideLogs(names: string[]): string[] {
  return names.filter((n) => n.startsWith('isolate-') && n.endsWith(`-${PERF_SIDE_LOG}`));
}

/** The preload's heap-mode switch, in every process of a heap run, and its request-tracking switch. */
function heapEnv(o: Pick<BuildOptions, 'mode' | 'heapInterval' | 'heapSamples' | 'trackRequests' | 'live'>): NodeJS.ProcessEnv {
  // Request tracking's switch rides along: every process of the run gets both.
  const requests = o.trackRequests === false ? { [REQUESTS_ENV]: '0' } : {};
  if (o.mode !== 'heap') return requests;
  // Live: each process copies its heap profile so far about once a second (preload/heapProfile.ts).
  return { [HEAP_PROF_ENV]: heapProfEnvValue(o.heapInterval, o.heapSamples), ...(o.live ? { [LIVE_ENV]: '1' } : {}), ...requests };
}

/** The profiler flags the preload puts back into a fork that sets its own execArgv (preloadForkFlags.ts). */
function forkFlagsEnv(flags: string[]): NodeJS.ProcessEnv {
  return flags.length ? { [NODE_FLAGS_ENV]: JSON.stringify(flags) } : {};
}

/** The node args for a run: profiler flags, the stop handler, a TS loader and source maps, then the user's. */
export function buildNodeArgs(o: Pick<BuildOptions, 'target' | 'mode' | 'runDir' | 'preloadPath' | 'loader'>): string[] {
  const user = o.target.nodeArgs;
  const ownLog = user.some((a) => a.startsWith('--logfile'));
  const profiler = profilerNodeArgs(o.mode, o.runDir).filter((a) => !user.includes(a) && !(ownLog && a.startsWith('--logfile')));
  const out = [...profiler, '-r', o.preloadPath];
  const ts = isTypeScriptFile(o.target.program);
  const loader = o.target.loader ?? (ts ? o.loader : undefined);
  if (loader && !hasLoader(user)) out.push(...loader);
  if ((ts || loader) && !user.some((a) => a.startsWith('--enable-source-maps'))) out.push('--enable-source-maps');
  return [...out, ...user];
}

/**
 * Any command line (`npm start`, a CLI from node_modules/.bin, `nodemon app.js`), run as written
 * without a shell: a `node` shim first on PATH adds the profiler flags to every node started by name,
 * forks inherit them, NODE_OPTIONS preloads the stop handler and process records into all of them,
 * and perf follows every child by itself.
 */
function buildCommandRun(o: BuildOptions, words: string[]): LaunchCommand {
  const nodeArgs = profilerNodeArgs(o.mode, o.runDir);
  const shimDir = writeNodeShim(o.node, nodeArgs, o.runDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...o.target.env,
    PATH: pathWithFirst(shimDir, o.target.env.PATH ?? process.env.PATH),
    NODE_OPTIONS: nodeOptionsWithPreload(o.preloadPath, o.target.env.NODE_OPTIONS ?? process.env.NODE_OPTIONS),
    [RUN_DIR_ENV]: o.runDir,
    [LAUNCHER_ENV]: launcherToken(),
    ...(o.mode === 'cpu-prof' ? { [CPU_PROF_ENV]: '1', ...(o.live ? { [LIVE_ENV]: '1' } : {}) } : {}),
    ...forkFlagsEnv(nodeArgs),
    ...heapEnv(o),
  };
  const [command, ...args] = words;
  if (o.mode === 'perf') {
    // perf puts its own folders (/usr/lib/perf-core, /usr/bin) first on PATH for its workload, ahead
    // of the shim: `env` sets PATH back before the command starts.
    const workload = ['env', `PATH=${env.PATH}`, command, ...args];
    return {
      command: o.perfPath ?? 'perf',
      args: [
        ...perfRecordArgs({ hz: o.perfFrequency, live: o.live, output: join(o.runDir, 'perf.data') }),
        '--',
        ...perfWorkload(o.live, workload),
      ],
      cwd: o.target.cwd,
      env,
      nodeArgs,
      shimDir,
      ...(o.live ? { stdoutFile: join(o.runDir, 'perf.data') } : {}),
    };
  }
  return { command, args, cwd: o.target.cwd, env, nodeArgs, shimDir };
}

export function buildLaunchCommand(o: BuildOptions): LaunchCommand {
  if (o.target.command?.length) return buildCommandRun(o, o.target.command);
  const nodeArgs = buildNodeArgs(o);
  const shimDir = plainRunShim(o);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...o.target.env,
    ...(shimDir ? { PATH: pathWithFirst(shimDir, o.target.env.PATH ?? process.env.PATH) } : {}),
    [RUN_DIR_ENV]: o.runDir,
    ...(o.mode === 'cpu-prof' ? { [CPU_PROF_ENV]: '1', ...(o.live ? { [LIVE_ENV]: '1' } : {}) } : {}),
    [LAUNCHER_ENV]: launcherToken(),
    // A child started from process.execPath with its own arguments (execFileSync(process.execPath, [script])) has
    // neither the command line's flags nor a fork's execArgv: the preload reaches it here, so it is recorded (and
    // profiled in-process in cpu-prof and heap modes) instead of silently missing. The main process loads it once.
    NODE_OPTIONS: nodeOptionsWithPreload(o.preloadPath, o.target.env.NODE_OPTIONS ?? process.env.NODE_OPTIONS),
    // A fork that sets its own execArgv needs the preload and the flags too.
    ...forkFlagsEnv([...profilerNodeArgs(o.mode, o.runDir), `--require=${o.preloadPath}`]),
    ...heapEnv(o),
  };
  const { program, args, cwd } = o.target;
  const line = (node: string, workloadPath?: string): string[] => {
    if (o.mode !== 'perf') return [node, ...nodeArgs, program, ...args];
    const perf = perfRecordCommand({
      perfPath: o.perfPath,
      hz: o.perfFrequency,
      output: join(o.runDir, 'perf.data'),
      live: o.live,
      node,
      nodeArgs,
      program,
      args,
      ...(workloadPath !== undefined ? { workloadPath } : {}),
    });
    return [perf.command, ...perf.args];
  };
  // With the shim, node by its path: a bare `node` would be looked up on the child's PATH, where the shim is first;
  // perf puts its own folders first on PATH for its workload, ahead of the shim (see buildCommandRun). run.json keeps
  // the line as the run named node (a shared page says `node app.js`, not where node was found).
  const [command, ...words] = shimDir && o.shimNode ? line(o.shimNode, env.PATH) : line(o.node);
  return {
    command,
    args: words,
    cwd,
    env,
    nodeArgs,
    ...(shimDir ? { shimDir, recorded: line(o.node) } : {}),
    ...(o.mode === 'perf' && o.live ? { stdoutFile: join(o.runDir, 'perf.data') } : {}),
  };
}

/**
 * A plain program's prof or perf run puts the `node` shim first on PATH too: a Node process its code starts by name
 * through a shell (`execSync('node worker.js')`, an npm script) gets the profiler flags, which Node refuses in
 * NODE_OPTIONS. Best effort: where no private folder can hold the shim, the run goes on without it (such a child is
 * then recorded and said to have left no profile, as before).
 */
function plainRunShim(o: BuildOptions): string | undefined {
  if (!o.shimNode || (o.mode !== 'prof' && o.mode !== 'perf')) return undefined;
  try {
    return writeNodeShim(o.shimNode, profilerNodeArgs(o.mode, o.runDir), o.runDir);
  } catch {
    return undefined;
  }
}
