import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import * as l10n from '@vscode/l10n';
import type { LaunchMode } from './run/modes';
import type { HeapSamples } from './preload/heapProfile';
import type { LaunchTarget } from './target';
import { buildLaunchCommand, perfSideLogs, type LaunchCommand } from './command';
import { collectJitDumps, preflightPerf } from './perf';
import { findPortInText, waitForPort } from './ports';
import { captureMaps, childPids, descendantPids, groupAlive, signalGroup, signalPid } from './processTree';
import {
  findRawProfiles,
  removeEmptyProfiles,
  diskNearlyFull,
  writeRunJson,
  type LoadSummary,
  type RunEvent,
  type RunInfo,
  type StopReason,
} from './run/runFolder';
import { mapsFileName, readProcessRecords, runProcesses } from './run/processRecords';
import { removeNodeShim } from './nodeShim';
import { replaceFileSync } from '../core/safeWrite';
import { markRunFinished, markRunLive } from './run/runLiveness';
import { findOnPath } from './which';
import { LineTail, parseRequestCount } from './lineTail';
import { runLoadCommand, type LoadRun } from './loadCommand';
import * as errors from './errors';
import { LaunchError } from './errors';

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

const DEFAULT_STOP_TIMEOUT = 10_000;
const DEFAULT_PORT_TIMEOUT = 30_000;

/** Runs `node --version` with the chosen executable: proves it runs and tells the version for run.json. */
export function nodeVersion(node: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(node, ['--version'], { timeout: 15_000, windowsHide: true }, (err, stdout) => {
      if (err) reject(errors.nodeNotFound(node, (err as NodeJS.ErrnoException).code?.toString() ?? err.message));
      else resolve(stdout.trim());
    });
  });
}

/** The V8 event logs --perf-basic-prof writes besides the JIT map: no samples, so nothing to keep. */
async function removePerfSideLogs(runDir: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(runDir);
  } catch {
    return;
  }
  await Promise.all(perfSideLogs(names).map((n) => rm(join(runDir, n), { force: true })));
}

/**
 * One profiled run: the app (under perf when asked) in its own process group, an optional load
 * command, graceful stop with a kill fallback, and the run folder's run.json at the end.
 */
export class ProfileSession {
  private app: ChildProcess | undefined;
  private load: LoadRun | undefined;
  private state: SessionState = 'starting';
  private stopReason: StopReason | undefined;
  private stopTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private killed = false;
  private readonly appTail = new LineTail(20);
  private outputText = '';
  private seenPort: number | undefined;
  private readonly abort = new AbortController();
  private nodePid: number | undefined;
  private mapsFile: string | undefined;
  private appExited = false;
  private stopStartedAt: number | undefined;
  command: LaunchCommand | undefined;

  constructor(private readonly o: SessionOptions) {}

  /** The port the load command was started against, once known. */
  get port(): number | undefined {
    return this.openPort;
  }

  get running(): boolean {
    return this.app !== undefined && !this.appExited;
  }

  /** Typed input for the app's stdin. */
  write(data: string): void {
    const stdin = this.app?.stdin;
    if (stdin && stdin.writable) stdin.write(data);
  }

  /** Ends the app gracefully (SIGINT to its group); a second call kills it at once. */
  stop(reason: StopReason = 'user'): void {
    if (!this.app || this.appExited) return;
    if (this.state === 'stopping') {
      this.forceKill();
      return;
    }
    this.stopReason ??= reason;
    this.mark('stop');
    this.rememberPerfPids();
    this.learnNodePid();
    this.setState('stopping');
    this.stopStartedAt = Date.now();
    this.abort.abort();
    this.stopLoad();
    // SIGINT reaches every process of the group, as Ctrl+C in a terminal would: perf finalizes
    // perf.data, and the preloaded handler turns it into process.exit() in node.
    if (!signalGroup(this.app.pid!, 'SIGINT')) signalPid(this.app.pid!, 'SIGINT');
    this.stopTimer = setTimeout(() => this.forceKill(), this.o.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT);
  }

  private forceKill(): void {
    if (!this.app || this.appExited) return;
    this.killed = true;
    clearTimeout(this.stopTimer);
    const pid = this.app.pid!;
    if (this.o.mode === 'perf') {
      // Kill what perf records, not perf itself, so it can still finish perf.data; perf follows shortly.
      for (const p of descendantPids(pid).reverse()) signalPid(p, 'SIGKILL');
      this.killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL') || signalPid(pid, 'SIGKILL'), 5000);
    } else if (!signalGroup(pid, 'SIGKILL')) {
      signalPid(pid, 'SIGKILL');
    }
  }

  private setState(s: SessionState): void {
    this.state = s;
    this.o.onState?.(s);
  }

  private info(text: string): void {
    this.o.onOutput?.(text + '\n', 'info');
  }

  private async preflight(): Promise<{ node: string; version: string; perfPath?: string }> {
    const t = this.o.target;
    if (!existsSync(t.cwd) || !statSync(t.cwd).isDirectory()) throw errors.cwdNotFound(t.cwd);
    if (!t.command && !existsSync(t.program)) throw errors.programNotFound(t.program);
    // The shim of a command run must name the real node by its path, or it would find itself on PATH.
    const node = t.command ? (t.nodePath ?? (await findOnPath('node', t.env.PATH ?? process.env.PATH))) : t.nodePath || 'node';
    if (!node) throw errors.nodeNotFound('node', 'ENOENT');
    const version = await nodeVersion(node);
    if (this.o.mode !== 'perf') return { node, version };
    const perf = await preflightPerf(this.o.perfPreflight);
    if (!perf.ok) throw new LaunchError('perf-preflight', perf.message);
    return { node, version, perfPath: perf.perfPath };
  }

  /** Runs to the end; rejects only when nothing could be started (bad program, node, perf). */
  async run(): Promise<RunResult> {
    const { node, version, perfPath } = await this.preflight();
    const o = this.o;
    const cmd = buildLaunchCommand({
      target: o.target,
      mode: o.mode,
      runDir: o.runDir,
      preloadPath: o.preloadPath,
      node,
      loader: o.loader,
      perfPath,
      perfFrequency: o.perfFrequency,
      heapInterval: o.heapInterval,
      heapSamples: o.heapSamples,
    });
    this.command = cmd;
    // Until it is removed, the run's processes write into the run folder (see runLiveness.ts).
    try {
      markRunLive(o.runDir);
    } catch {
      // there already (a folder reused by hand)
    }
    // The shim folder goes with the run, and with this process if it ends first (the CLI's output pipe closed).
    const dropShim = () => {
      markRunFinished(o.runDir);
      if (cmd.shimDir) removeNodeShim(cmd.shimDir, o.runDir);
    };
    process.once('exit', dropShim);
    const startedAt = new Date();
    const t0 = Date.now();
    const app = spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd,
      env: cmd.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.app = app;
    const spawnError = new Promise<Error>((resolve) => app.once('error', resolve));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      app.once('exit', (code, signal) => {
        this.appExited = true;
        resolve({ code, signal });
      }),
    );
    const closed = new Promise((r) => app.once('close', r));
    const first = await Promise.race([spawnError, new Promise<'spawned'>((r) => app.once('spawn', () => r('spawned')))]);
    if (first !== 'spawned') {
      process.off('exit', dropShim);
      dropShim();
      if (o.target.command && cmd.command === o.target.command[0]) throw errors.programNotFound(cmd.command);
      throw errors.nodeNotFound(cmd.command, (first as NodeJS.ErrnoException).code ?? first.message);
    }
    this.setState(o.loadCommand ? 'waiting-for-port' : 'running');
    this.info(l10n.t('Node Flame: profiling with {0} → {1}', o.mode, o.runDir));

    app.stdin?.on('error', () => {});
    for (const [stream, kind] of [
      [app.stdout, 'stdout'],
      [app.stderr, 'stderr'],
    ] as const) {
      stream?.setEncoding('utf8');
      stream?.on('data', (text: string) => {
        o.onOutput?.(text, kind);
        this.appTail.push(text);
        if (this.seenPort === undefined && this.outputText.length < 65536) {
          this.outputText += text;
          this.seenPort = findPortInText(this.outputText);
        }
      });
    }

    const mapsTimer = setTimeout(() => void this.captureMaps(), 500);
    const pidPoll = o.mode === 'perf' ? setInterval(() => this.rememberPerfPids(), 200) : undefined;
    const loadDone = o.loadCommand ? this.runLoad(o.loadCommand, exited) : Promise.resolve(undefined);

    const { code, signal } = await exited;
    const durationMs = Date.now() - t0;
    clearTimeout(mapsTimer);
    clearInterval(pidPoll);
    clearTimeout(this.stopTimer);
    this.stopReason ??= 'exit';
    this.abort.abort();
    this.stopLoad();
    // A command's first process (npm, a shell) may end before the processes it started have written
    // their profiles: they get the rest of the stop timeout.
    if (o.target.command && app.pid) await this.settleTree(app.pid);
    // Whatever the app left running in its group (children that ignored SIGINT) goes now.
    if (app.pid && groupAlive(app.pid)) signalGroup(app.pid, 'SIGKILL');
    for (const pid of this.liveRecordedPids()) signalPid(pid, 'SIGKILL');
    process.off('exit', dropShim);
    dropShim();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
    clearTimeout(this.killTimer);
    this.appTail.flush();
    const load = await loadDone;
    this.setState('done');

    // The processes recorded themselves (see processRecords): whatever the timing, the node pid is known now.
    const records = readProcessRecords(o.runDir);
    if (o.mode === 'perf') {
      for (const r of records) this.perfPids.add(r.pid);
      this.nodePid ??= (records.find((r) => r.ppid === app.pid) ?? records[0])?.pid;
    }
    const mapsPid = this.nodePid ?? (o.mode === 'perf' ? undefined : app.pid);
    const maps = mapsPid !== undefined ? join(o.runDir, mapsFileName(mapsPid)) : undefined;
    if (maps && existsSync(maps)) this.mapsFile = maps;

    // perf script needs each JIT map; a copy in the run folder outlives the /tmp one, which is removed after processing.
    if (o.mode === 'perf') {
      for (const pid of this.perfPids)
        await copyFile(`/tmp/perf-${pid}.map`, join(o.runDir, `perf-${pid}.map`), constants.COPYFILE_EXCL).catch(() => undefined);
      const cwds = [...records.map((r) => r.cwd).filter((c): c is string => typeof c === 'string'), cmd.cwd];
      await collectJitDumps([...this.perfPids], cwds, o.runDir).catch(() => undefined);
      await removePerfSideLogs(o.runDir);
    }
    const diskFull = removeEmptyProfiles(o.runDir);
    const profiles = findRawProfiles(o.runDir, o.mode, o.mode === 'perf' ? this.nodePid : app.pid);
    let error: LaunchError | undefined = this.loadError;
    if (!error && code !== 0 && this.stopReason === 'exit') error = errors.exitNonZero(code, signal, this.appTail.lines);
    if (!error && !profiles.length) error = errors.noProfile(o.runDir, this.killed, diskFull || diskNearlyFull(o.runDir));
    if (this.killed)
      this.info(
        l10n.t('Node Flame: the app did not stop within {0} s and was killed.', String((o.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT) / 1000)),
      );

    const info: RunInfo = {
      version: 1,
      mode: o.mode,
      command: [cmd.command, ...cmd.args],
      cwd: cmd.cwd,
      nodeVersion: version,
      startedAt: startedAt.toISOString(),
      durationMs,
      pid: app.pid,
      nodePid: this.nodePid ?? (o.mode === 'perf' ? undefined : app.pid),
      exitCode: code,
      signal,
      stoppedBy: this.stopReason,
      port: this.openPort,
      load,
      profiles: profiles.map((p) => relative(o.runDir, p)),
      mapsFile: this.mapsFile && basename(this.mapsFile),
      error: error?.message,
      processes: runProcesses(
        records,
        profiles.map((p) => relative(o.runDir, p)),
      ),
      events: this.events.length ? this.events : undefined,
    };
    try {
      await writeRunJson(o.runDir, info);
    } catch (e) {
      // A full disk: the run's result is still told; run.json is missing, as for a run cut short.
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      error ??= new LaunchError('run-json', l10n.t('Could not write run.json in {0}: {1}', o.runDir, code));
      info.error = error.message;
    }
    return {
      runDir: o.runDir,
      profiles,
      mapsFile: this.mapsFile,
      exitCode: code,
      signal,
      stoppedBy: this.stopReason,
      killed: this.killed,
      durationMs,
      port: this.openPort,
      load,
      lastOutput: [...this.appTail.lines],
      error,
      perfPids: [...this.perfPids],
      info,
    };
  }

  private openPort: number | undefined;
  /** When the port opened, the load ran and Stop came: the Timeline's markers. */
  private readonly events: RunEvent[] = [];
  private mark(kind: RunEvent['kind']): void {
    if (!this.events.some((e) => e.kind === kind)) this.events.push({ kind, at: new Date().toISOString() });
  }
  private loadError: LaunchError | undefined;
  private readonly perfPids = new Set<number>();

  /** The node process: the app itself, or perf's child in perf mode. */
  private findNodePid(): number | undefined {
    const pid = this.app?.pid;
    if (pid === undefined) return undefined;
    if (this.o.mode !== 'perf') return pid;
    this.rememberPerfPids();
    return childPids(pid)[0];
  }

  /** Every process under perf writes /tmp/perf-<pid>.map; remembered so they can be removed after processing. */
  private rememberPerfPids(): void {
    if (this.o.mode === 'perf' && this.app?.pid && !this.appExited) for (const p of descendantPids(this.app.pid)) this.perfPids.add(p);
  }

  /**
   * At Stop, before any signal: the node process is surely alive, so its pid and maps are taken now,
   * whatever timers have or have not fired yet.
   */
  private learnNodePid(): void {
    if (this.nodePid !== undefined) return;
    const pid = this.findNodePid();
    if (pid === undefined) return;
    this.nodePid = pid;
    if (process.platform !== 'linux') return;
    const dest = join(this.o.runDir, mapsFileName(pid));
    try {
      replaceFileSync(dest, readFileSync(`/proc/${pid}/maps`));
      this.mapsFile = dest;
    } catch {
      // gone already: its preload wrote the maps at exit
    }
  }

  /** Recorded processes of this run that have not recorded their exit and still exist. */
  private liveRecordedPids(): number[] {
    return readProcessRecords(this.o.runDir)
      .filter((r) => r.endedAt === undefined && existsSync(`/proc/${r.pid}`))
      .map((r) => r.pid);
  }

  /**
   * Waits for the rest of a command's process tree: up to the stop timeout from Stop (or from now,
   * when the first process ended by itself and left others running, which are asked to stop first).
   */
  private async settleTree(pgid: number): Promise<void> {
    const busy = () => groupAlive(pgid) || this.liveRecordedPids().length > 0;
    if (!busy()) return;
    const timeout = this.o.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT;
    if (this.stopStartedAt === undefined) {
      this.stopStartedAt = Date.now();
      signalGroup(pgid, 'SIGINT');
      for (const pid of this.liveRecordedPids()) signalPid(pid, 'SIGINT');
    }
    while (busy() && Date.now() - this.stopStartedAt < timeout) await new Promise((r) => setTimeout(r, 100));
    if (busy()) this.killed = true;
  }

  private async captureMaps(): Promise<void> {
    if (this.appExited) return;
    const pid = this.findNodePid();
    if (pid === undefined) return;
    this.nodePid = pid;
    const dest = join(this.o.runDir, mapsFileName(pid));
    if (await captureMaps(pid, dest)) this.mapsFile = dest;
  }

  private stopLoad(): void {
    this.load?.kill();
  }

  private async runLoad(command: string, appExited: Promise<unknown>): Promise<LoadSummary | undefined> {
    const o = this.o;
    const timeout = o.portTimeoutMs ?? DEFAULT_PORT_TIMEOUT;
    const portSource = o.waitForPort ? o.waitForPort : () => this.seenPort;
    const port = await Promise.race([waitForPort(portSource, timeout, this.abort.signal), appExited.then(() => undefined)]);
    if (port === undefined) {
      const selfExit = this.stopReason === undefined || this.stopReason === 'exit';
      if (this.appExited && selfExit) {
        const { code, signal } = { code: this.app!.exitCode, signal: this.app!.signalCode };
        this.loadError = errors.exitedEarly(code, signal, this.appTail.lines);
      } else if (!this.appExited && selfExit) {
        this.loadError = errors.portTimeout(timeout / 1000, o.waitForPort || this.seenPort);
        this.info(this.loadError.message);
        this.stop('port-timeout');
      }
      return undefined;
    }
    this.openPort = port;
    this.mark('port');
    await this.captureMaps();
    if (this.appExited || this.state === 'stopping') return undefined;
    this.setState('load');
    this.info(l10n.t('Node Flame: the app listens on port {0}; starting the load: {1}', String(port), command));
    const t0 = Date.now();
    this.mark('loadStart');
    const tail = new LineTail(10);
    const load = runLoadCommand(command, {
      cwd: o.loadCwd ?? o.target.cwd,
      env: { ...process.env, ...o.target.env, NODE_FLAME_PORT: String(port) },
      onLine: (line) => {
        tail.push(line + '\n');
        o.onOutput?.(`[load] ${line}\n`, 'load');
      },
    });
    this.load = load;
    const exitCode = await load.done;
    const durationMs = Date.now() - t0;
    this.mark('loadEnd');
    if (!this.appExited && (this.state as SessionState) !== 'stopping') {
      this.info(l10n.t('Node Flame: the load command ended (exit code {0}); stopping the app.', String(exitCode)));
      this.stop('load');
    }
    return { command, exitCode, durationMs, requests: parseRequestCount(tail.lines), lastLines: tail.lines };
  }
}
