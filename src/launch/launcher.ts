import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { basename, relative, resolve as resolvePath } from 'node:path';
import * as l10n from '@vscode/l10n';
import type { RunResult, SessionOptions, SessionState } from './launchOptions';
import { buildLaunchCommand, type LaunchCommand } from './command';
import { perfLiveStream, preflightPerf } from './perf';
import { PerfStreamScripter } from './perfStream';
import { collectRun } from './collect';
import { findPortInText, waitForPort } from './ports';
import { descendantPids, groupAlive, signalGroup, signalPid } from './processTree';
import { NodeProcessWatch } from './nodeProcess';
import { diskNearlyFull, writeRunJson, type LoadSummary, type RunEvent, type RunInfo, type StopReason } from './run/runFolder';
import { readProcessRecords, runProcesses } from './run/processRecords';
import { removeNodeShim } from './nodeShim';
import { markRunFinished, markRunLive } from './run/runLiveness';
import { findOnPath } from './which';
import { writeLiveInfo } from './run/cpuChunks';
import { LineTail, parseRequestCount } from './lineTail';
import { runLoadCommand, type LoadRun } from './loadCommand';
import * as errors from './errors';
import { LaunchError } from './errors';
import { CREATE_NEW } from '../core/safeWrite';
import type { Readable, Writable } from 'node:stream';

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
  private appExited = false;
  /** Which process is node (perf's child in perf mode), its memory map, and every process perf ran. */
  private readonly node: NodeProcessWatch;
  private stopStartedAt: number | undefined;
  command: LaunchCommand | undefined;

  constructor(private readonly o: SessionOptions) {
    this.node = new NodeProcessWatch(o.mode, o.runDir, () => this.app?.pid);
  }

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
    this.node.rememberPerfPids();
    this.node.learnAtStop();
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

  private async preflight(): Promise<{ node: string; version: string; perfPath?: string; shimNode?: string }> {
    const t = this.o.target;
    if (!existsSync(t.cwd) || !statSync(t.cwd).isDirectory()) throw errors.cwdNotFound(t.cwd);
    if (!t.command && !existsSync(t.program)) throw errors.programNotFound(t.program);
    // The shim of a command run must name the real node by its path, or it would find itself on PATH.
    const node = t.command ? (t.nodePath ?? (await findOnPath('node', t.env.PATH ?? process.env.PATH))) : t.nodePath || 'node';
    if (!node) throw errors.nodeNotFound('node', 'ENOENT');
    const version = await nodeVersion(node);
    // A plain prof or perf run's shim names node by its path (see plainRunShim); none if it is not found.
    const shimNode =
      !t.command && (this.o.mode === 'prof' || this.o.mode === 'perf')
        ? node.includes('/')
          ? resolvePath(t.cwd, node)
          : await findOnPath(node, t.env.PATH ?? process.env.PATH)
        : undefined;
    if (this.o.mode !== 'perf') return { node, version, shimNode };
    const perf = await preflightPerf(this.o.perfPreflight);
    if (!perf.ok) throw new LaunchError('perf-preflight', perf.message);
    return { node, version, perfPath: perf.perfPath, shimNode };
  }

  /** Runs to the end; rejects only when nothing could be started (bad program, node, perf). */
  async run(): Promise<RunResult> {
    const { node, version, perfPath, shimNode } = await this.preflight();
    const o = this.o;
    const cmd = buildLaunchCommand({
      target: o.target,
      mode: o.mode,
      runDir: o.runDir,
      preloadPath: o.preloadPath,
      node,
      shimNode,
      loader: o.loader,
      perfPath,
      perfFrequency: o.perfFrequency,
      heapInterval: o.heapInterval,
      heapSamples: o.heapSamples,
      trackRequests: o.trackRequests,
      live: o.live,
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
    this.liveStartedAt = startedAt.toISOString();
    this.writeLiveInfo();
    // A live perf run's recording goes to perf's stdout, a file of the run folder (perfStream.ts); the app's stdout
    // comes on fd 4 (perfWorkload).
    const perfOut = cmd.stdoutFile !== undefined ? openSync(cmd.stdoutFile, CREATE_NEW, 0o644) : undefined;
    const app = spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd,
      env: cmd.env,
      // fd 3: perf's control fd (perfStream.ts).
      stdio: perfOut === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', perfOut, 'pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.app = app;
    if (perfOut !== undefined) closeSync(perfOut);
    const spawnError = new Promise<Error>((resolve) => app.once('error', resolve));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      app.once('exit', (code, signal) => {
        this.appExited = this.node.exited = true;
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
      [perfOut === undefined ? app.stdout : (app.stdio[4] as Readable | null), 'stdout'],
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

    const stream =
      perfLiveStream(o) && perfPath && cmd.stdoutFile
        ? new PerfStreamScripter(o.runDir, perfPath, cmd.stdoutFile, app.stdio[3] as Writable | null)
        : undefined;
    stream?.start();
    const mapsTimer = setTimeout(() => void this.node.captureMaps(), 500);
    const pidPoll = o.mode === 'perf' ? setInterval(() => this.node.rememberPerfPids(), 200) : undefined;
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
    // perf has ended its recording: the rest scripted while the app's JIT maps are still in /tmp.
    await stream?.finish();
    this.setState('done');

    const { records, profiles, diskFull, nodePid, mapsFile } = await collectRun({
      runDir: o.runDir,
      mode: o.mode,
      appPid: app.pid,
      nodePid: this.node.nodePid,
      mapsFile: this.node.mapsFile,
      perfPids: this.node.perfPids,
      cwd: cmd.cwd,
    });
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
      command: cmd.recorded ?? [cmd.command, ...cmd.args],
      cwd: cmd.cwd,
      nodeVersion: version,
      startedAt: startedAt.toISOString(),
      durationMs,
      pid: app.pid,
      nodePid: nodePid ?? (o.mode === 'perf' ? undefined : app.pid),
      exitCode: code,
      signal,
      stoppedBy: this.stopReason,
      port: this.openPort,
      load,
      profiles: profiles.map((p) => relative(o.runDir, p)),
      mapsFile: mapsFile && basename(mapsFile),
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
      mapsFile,
      exitCode: code,
      signal,
      stoppedBy: this.stopReason,
      killed: this.killed,
      durationMs,
      port: this.openPort,
      load,
      lastOutput: [...this.appTail.lines],
      error,
      perfPids: [...this.node.perfPids],
      info,
    };
  }

  private openPort: number | undefined;
  /** When the port opened, the load ran and Stop came: the Timeline's markers. */
  private readonly events: RunEvent[] = [];
  private mark(kind: RunEvent['kind'], label?: string): void {
    if (kind !== 'mark' && this.events.some((e) => e.kind === kind)) return;
    this.events.push({ kind, at: new Date().toISOString(), ...(label ? { label } : {}) });
    this.writeLiveInfo();
  }

  /** A moment the user marks while the app runs ("before the fix"): a marker on the Timeline, live and in run.json. */
  markMoment(label: string): void {
    if (this.running) this.mark('mark', label.slice(0, 200));
  }

  private liveStartedAt: string | undefined;
  private writeLiveInfo(): void {
    if (this.o.live && this.liveStartedAt)
      writeLiveInfo(this.o.runDir, { mode: this.o.mode, startedAt: this.liveStartedAt, events: this.events });
  }
  private loadError: LaunchError | undefined;
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
    await this.node.captureMaps();
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
