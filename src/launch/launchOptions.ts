// What a launch is given and what it answers: the options of one profiled run and its result.
import type { LaunchMode } from './run/modes';
import type { HeapSamples } from './preload/heapProfile';
import type { LaunchTarget } from './target';
import type { LoadSummary, RunInfo, StopReason } from './run/runFolder';
import type { LaunchError } from './errors';

export type OutputKind = 'stdout' | 'stderr' | 'load' | 'info';

export type SessionState = 'starting' | 'waiting-for-port' | 'running' | 'load' | 'stopping' | 'done';

export interface SessionOptions {
  target: LaunchTarget;
  mode: LaunchMode;
  runDir: string;
  preloadPath: string;
  /** TypeScript loader args, used when the program is a .ts file. */
  loader?: string[];
  /** Shell command line run once the app listens; the app is stopped when it exits. */
  loadCommand?: string;
  /** cwd of the load command (the workspace folder). */
  loadCwd?: string;
  /** Port to wait for; undefined: the first port seen in the app's output. */
  waitForPort?: number;
  portTimeoutMs?: number;
  /** Time the app gets to exit after SIGINT before the whole process tree is killed. */
  stopTimeoutMs?: number;
  perfFrequency?: number;
  /** Heap mode: see BuildOptions. */
  heapInterval?: number;
  heapSamples?: HeapSamples;
  /** See BuildOptions. */
  trackRequests?: boolean;
  /** Watch the run live (cpu-prof: the profile in chunks, read while the app runs). */
  live?: boolean;
  /** Where the perf preflight reads the kernel's limits; tests feed it other files. */
  perfPreflight?: { paranoidFile?: string; statusFile?: string };
  onOutput?: (text: string, kind: OutputKind) => void;
  onState?: (state: SessionState) => void;
}

export interface RunResult {
  runDir: string;
  /** Raw profile files, the one to open first; empty when none was written. */
  profiles: string[];
  /** `/proc/<pid>/maps` of the node process, when captured. */
  mapsFile?: string;
  exitCode: number | null;
  signal: string | null;
  stoppedBy: StopReason;
  /** The app had to be killed after the stop timeout. */
  killed: boolean;
  durationMs: number;
  port?: number;
  load?: LoadSummary;
  lastOutput: string[];
  /** What went wrong, said so the user knows what to do; a profile may still be there. */
  error?: LaunchError;
  /** Pids whose /tmp/perf-<pid>.map files belong to this run (perf mode). */
  perfPids: number[];
  info: RunInfo;
}
