import * as l10n from '@vscode/l10n';
import { CdpSession } from './cdp';
import { sampleCount, type CallFrame, type CpuProfile } from '../run/cpuProfileMerge';
import { CpuProfileMerger } from '../run/cpuProfileMerge';
import type { HeapProfileNote } from '../../core/importers/heapprofile';
import { InspectorError } from './errors';
import { nodeVersionOf, type InspectorTarget } from './endpoints';
import { nextHeapCopyAt } from '../run/liveHeapFile';

export interface AttachOptions {
  /** Profiler sampling interval in microseconds (V8's default is 1000). */
  samplingIntervalUs?: number;
  /**
   * The profiler is stopped and restarted this often so a dropped connection loses only the piece
   * being recorded: `Profiler.stop` returns the whole profile at once, nothing streams before it.
   */
  chunkMs?: number;
  /**
   * Called with each piece as it is received (a live attach writes it to the run folder for the live view); the
   * profile at the end is the merge of exactly these pieces.
   */
  onPart?: (part: CpuProfile, pid: number | undefined) => void;
  /** Collect scripts' source map URLs with `Debugger.scriptParsed` (default true). */
  sourceMaps?: boolean;
  connectTimeoutMs?: number;
  /** Record a sampling heap profile instead of a CPU profile (bytes between samples, which samples). */
  heap?: { samplingInterval: number; samples: HeapProfileNote['samples'] };
  /** Heap mode: called with each copy of the sampling heap profile taken every `chunkMs` (a live attach shows it). */
  onHeap?: (profile: SamplingHeapProfile, pid: number | undefined) => void;
}

/** A sampling heap profile as the inspector returns it (`HeapProfiler.SamplingHeapProfile`). */
export interface SamplingHeapProfile {
  head: { callFrame: CallFrame; selfSize: number; id: number; children: SamplingHeapProfile['head'][] };
  samples?: { size: number; nodeId: number; ordinal: number }[];
}

export interface AttachResult {
  /** Undefined when nothing was received (the connection dropped before the first piece). */
  profile?: CpuProfile;
  /** Heap mode: the sampling heap profile (the latest one received when the connection dropped), and what its samples are. */
  heapProfile?: SamplingHeapProfile;
  heapNote?: HeapProfileNote;
  samples: number;
  /** Pieces merged into `profile`. */
  parts: number;
  /**
   * Each cut's time in ms, from `Profiler.stop` sent to `Profiler.start` answered: the target's main thread stops,
   * serialises and restarts its profile in between (what a live attach costs the app per chunk, plus the round trip).
   */
  cutsMs: number[];
  /** Why the session ended early, when it did. */
  lost?: InspectorError;
  /** Script URL → its `sourceMapURL` (a `data:` URL or one relative to the script), as the target reported them. */
  sourceMaps: Record<string, string>;
  startedAt: number;
  durationMs: number;
  nodeVersion?: string;
}

const DEFAULT_CHUNK_MS = 10_000;

/** A running CPU profile in another process, over the inspector protocol. */
export class AttachSession {
  /** The pieces received so far, merged as they come (the same merge as a live run's chunks). */
  private readonly merged = new CpuProfileMerger();
  private onPart: AttachOptions['onPart'];
  private onHeap: AttachOptions['onHeap'];
  private readonly cutsMs: number[] = [];
  /** The target's pid: as found (a pid given), else as it says (an address given), for the live file's name. */
  pid: number | undefined;
  private heapProfile: SamplingHeapProfile | undefined;
  private heap: AttachOptions['heap'];
  private nextHeapCopy = 0;
  private readonly sourceMaps: Record<string, string> = {};
  private lost: InspectorError | undefined;
  private op: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<AttachResult> | undefined;
  private readonly lostListeners: ((e: InspectorError) => void)[] = [];
  readonly startedAt = Date.now();
  private readonly keepTitle = `node-flame keep ${process.pid}-${Math.random().toString(36).slice(2)}`;

  private constructor(
    private readonly cdp: CdpSession,
    readonly target: InspectorTarget,
  ) {
    cdp.onClose((e) => {
      if (this.stopping) return;
      this.lost = e;
      clearInterval(this.timer);
      for (const l of this.lostListeners.splice(0)) l(e);
    });
  }

  static async start(target: InspectorTarget, opts: AttachOptions = {}): Promise<AttachSession> {
    const cdp = await CdpSession.connect(target.webSocketDebuggerUrl, target.address, opts.connectTimeoutMs);
    const s = new AttachSession(cdp, target);
    try {
      if (opts.sourceMaps !== false) {
        cdp.on('Debugger.scriptParsed', (p) => {
          if (typeof p.url === 'string' && p.url && typeof p.sourceMapURL === 'string' && p.sourceMapURL)
            s.sourceMaps[p.url] = p.sourceMapURL;
        });
        // Every already-loaded script is reported before this answers. Pauses are skipped so a
        // `debugger;` statement in the app cannot freeze it while we listen.
        await cdp.send('Debugger.enable');
        await cdp.send('Debugger.setSkipAllPauses', { skip: true });
      }
      s.heap = opts.heap;
      s.onPart = opts.onPart;
      s.onHeap = opts.onHeap;
      s.pid = (target as { pid?: number }).pid;
      if (s.pid === undefined && (opts.onPart || opts.onHeap)) {
        const r = await cdp
          .send<{ result?: { value?: unknown } }>('Runtime.evaluate', { expression: 'process.pid', silent: true })
          .catch(() => undefined);
        if (typeof r?.result?.value === 'number') s.pid = r.result.value;
      }
      if (opts.heap) {
        const keep = opts.heap.samples === 'allocated';
        await cdp.send('HeapProfiler.enable');
        await cdp.send('HeapProfiler.startSampling', {
          samplingInterval: Math.max(1, Math.round(opts.heap.samplingInterval)),
          includeObjectsCollectedByMajorGC: keep,
          includeObjectsCollectedByMinorGC: keep,
        });
      } else {
        await cdp.send('Profiler.enable');
        if (opts.samplingIntervalUs && opts.samplingIntervalUs > 0) {
          await cdp.send('Profiler.setSamplingInterval', { interval: Math.round(opts.samplingIntervalUs) });
        }
        await cdp.send('Profiler.start');
        if ((opts.chunkMs ?? DEFAULT_CHUNK_MS) > 0) await s.keepProfilerAlive(true);
      }
      // Lets a process started with --inspect-wait run; a no-op for running ones.
      await cdp.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    } catch (e) {
      cdp.close();
      throw e;
    }
    const chunkMs = opts.chunkMs ?? DEFAULT_CHUNK_MS;
    if (chunkMs > 0) s.timer = setInterval(() => void s.rotate(), chunkMs);
    return s;
  }

  private addPart(profile: CpuProfile): void {
    this.merged.add(profile);
    try {
      this.onPart?.(profile, this.pid);
    } catch {
      // the live view's copy failed (a full disk): the recording goes on
    }
  }

  /**
   * V8's inspector disposes of its CPU profiler when the session's last profile stops, and a new one logs every
   * compiled function again on start: a cut of a live attach took 11–20 ms (median) that way in the test's target
   * of 5000 functions, 2.5–5 ms with the profiler kept. A console profile (the command line API's `profile()`,
   * whatever the app did to `console`) is a second profile of this session, so the profiler lives on between
   * cuts; it is never read, and `Profiler.disable` drops it unserialised. The console call reaches every session
   * with the profiler on, so its end is called too: another client's copy ends there rather than recording on.
   */
  private async keepProfilerAlive(on: boolean): Promise<void> {
    const expression = `${on ? 'profile' : 'profileEnd'}(${JSON.stringify(this.keepTitle)})`;
    await this.cdp.send('Runtime.evaluate', { expression, includeCommandLineAPI: true, silent: true }).catch(() => undefined);
  }

  /** Called once if the connection drops before `stop`. */
  onLost(listener: (e: InspectorError) => void): void {
    if (this.lost) listener(this.lost);
    else this.lostListeners.push(listener);
  }

  private rotate(): Promise<unknown> {
    this.op = this.op.then(async () => {
      if (this.lost || this.stopping) return;
      try {
        if (this.heap) {
          // Each copy costs the app its whole profile serialised (tens of MB for a compiler): spaced by nextHeapCopyAt.
          if (performance.now() < this.nextHeapCopy) return;
          const t0 = performance.now();
          // Stopping would drop the heap samples so far: a copy of them is kept instead.
          this.heapProfile = (await this.cdp.send<{ profile: SamplingHeapProfile }>('HeapProfiler.getSamplingProfile')).profile;
          this.nextHeapCopy = nextHeapCopyAt(t0, performance.now());
          try {
            this.onHeap?.(this.heapProfile, this.pid);
          } catch {
            // the live view's copy failed (a full disk): the recording goes on
          }
          return;
        }
        // Both sent at once: the target handles them one after the other, with as little of the app between as can be.
        const t0 = performance.now();
        const [stopped, started] = await Promise.allSettled([
          this.cdp.send<{ profile: CpuProfile }>('Profiler.stop'),
          this.cdp.send('Profiler.start'),
        ]);
        const t1 = performance.now();
        // A piece received is kept even when the restart failed (the connection dropped in between).
        if (stopped.status === 'fulfilled') this.addPart(stopped.value.profile);
        if (stopped.status === 'rejected' || started.status === 'rejected') return;
        this.cutsMs.push(t1 - t0);
      } catch {
        // The close listener records the loss.
      }
    });
    return this.op;
  }

  /** Ends profiling and returns everything received; never throws for a lost connection. */
  stop(): Promise<AttachResult> {
    this.stopping ??= this.finish();
    return this.stopping;
  }

  private async finish(): Promise<AttachResult> {
    clearInterval(this.timer);
    await this.op;
    if (!this.lost && this.heap) {
      try {
        // live: what a full GC leaves is what the app still holds.
        if (this.heap.samples === 'live') await this.cdp.send('HeapProfiler.collectGarbage');
        this.heapProfile = (await this.cdp.send<{ profile: SamplingHeapProfile }>('HeapProfiler.stopSampling')).profile;
        await this.cdp.send('HeapProfiler.disable').catch(() => undefined);
        await this.cdp.send('Debugger.disable').catch(() => undefined);
      } catch (e) {
        this.lost = e instanceof InspectorError ? e : new InspectorError('lost', String(e));
      }
    } else if (!this.lost) {
      try {
        const { profile } = await this.cdp.send<{ profile: CpuProfile }>('Profiler.stop');
        this.addPart(profile);
        await this.cdp.send('Profiler.disable').catch(() => undefined);
        await this.keepProfilerAlive(false);
        await this.cdp.send('Debugger.disable').catch(() => undefined);
      } catch (e) {
        this.lost = e instanceof InspectorError ? e : new InspectorError('lost', String(e));
      }
    }
    this.cdp.close();
    const profile = this.merged.chunks ? this.merged.profile() : undefined;
    const heapProfile = this.heapProfile;
    const heapNote: HeapProfileNote | undefined = this.heap && {
      samples: this.heap.samples,
      samplingInterval: this.heap.samplingInterval,
      startTime: this.startedAt,
      durationMs: Date.now() - this.startedAt,
    };
    const got = profile ? sampleCount(profile) : (heapProfile?.samples?.length ?? 0);
    const lost = this.lost
      ? new InspectorError(
          this.lost.code,
          profile || heapProfile
            ? l10n.t('{0} Kept the {1} samples received before that; the last few seconds are missing.', this.lost.message, String(got))
            : l10n.t('{0} No samples were received: the inspector sends the profile only when profiling stops.', this.lost.message),
        )
      : undefined;
    return {
      profile,
      ...(heapProfile ? { heapProfile, heapNote } : {}),
      samples: got,
      parts: this.merged.chunks,
      cutsMs: [...this.cutsMs],
      lost,
      sourceMaps: { ...this.sourceMaps },
      startedAt: this.startedAt,
      durationMs: Date.now() - this.startedAt,
      nodeVersion: nodeVersionOf(this.target.browser),
    };
  }
}
