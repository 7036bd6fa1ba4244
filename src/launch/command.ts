import { join } from 'node:path';
import type { LaunchMode } from './modes';
import type { LaunchTarget } from './target';
import { hasLoader, isTypeScriptFile } from './commandLine';
import { perfRecordCommand } from './perf';
import { SOURCE_MAPS_ENV } from './preloadSourceMaps';
import { ANNOUNCED_MAPS_FILE } from '../core/announcedSourceMaps';

export interface BuildOptions {
  target: LaunchTarget;
  mode: LaunchMode;
  runDir: string;
  /** dist/preload-stop.js: turns SIGINT/SIGTERM into process.exit() so the profile is written. */
  preloadPath: string;
  /** The node executable to run. */
  node: string;
  /** TypeScript loader args for a .ts program (see loader.ts). */
  loader?: string[];
  perfPath?: string;
  perfFrequency?: number;
}

export interface LaunchCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Node args we run with, ours and the user's (also inside `args`). */
  nodeArgs: string[];
}

/** Flags that make node write the mode's raw profile into the run folder, whatever the app's cwd. */
export function profilerNodeArgs(mode: LaunchMode, runDir: string): string[] {
  switch (mode) {
    case 'prof':
      // V8 prefixes the file name with isolate-<address>-<pid>-<id>-, one file per isolate (worker threads).
      return ['--prof', `--logfile=${join(runDir, 'v8.log')}`];
    case 'cpu-prof':
      return ['--cpu-prof', `--cpu-prof-dir=${runDir}`];
    case 'perf':
      return ['--perf-basic-prof', '--interpreted-frames-native-stack'];
  }
}

/** The node args for a run: profiler flags, the stop handler, a TS loader and source maps, then the user's. */
export function buildNodeArgs(o: Pick<BuildOptions, 'target' | 'mode' | 'runDir' | 'preloadPath' | 'loader'>): string[] {
  const user = o.target.nodeArgs;
  const out = [...profilerNodeArgs(o.mode, o.runDir).filter((a) => !user.includes(a)), '-r', o.preloadPath];
  const ts = isTypeScriptFile(o.target.program);
  const loader = o.target.loader ?? (ts ? o.loader : undefined);
  if (loader && !hasLoader(user)) out.push(...loader);
  if ((ts || loader) && !user.some((a) => a.startsWith('--enable-source-maps'))) out.push('--enable-source-maps');
  return [...out, ...user];
}

export function buildLaunchCommand(o: BuildOptions): LaunchCommand {
  const nodeArgs = buildNodeArgs(o);
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.target.env, [SOURCE_MAPS_ENV]: join(o.runDir, ANNOUNCED_MAPS_FILE) };
  const { program, args, cwd } = o.target;
  if (o.mode === 'perf') {
    const perf = perfRecordCommand({
      perfPath: o.perfPath,
      hz: o.perfFrequency,
      output: join(o.runDir, 'perf.data'),
      node: o.node,
      nodeArgs,
      program,
      args,
    });
    return { command: perf.command, args: perf.args, cwd, env, nodeArgs };
  }
  return { command: o.node, args: [...nodeArgs, program, ...args], cwd, env, nodeArgs };
}
