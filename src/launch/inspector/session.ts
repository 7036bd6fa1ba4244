import * as l10n from '@vscode/l10n';
import { CdpSession } from './cdp';
import { mergeCpuProfiles, sampleCount, type CallFrame, type CpuProfile } from './cpuprofile';
import type { HeapProfileNote } from '../../core/importers/heapprofile';
import { InspectorError } from './errors';
import { nodeVersionOf, type InspectorTarget } from './endpoints';

export interface AttachOptions {
  /** Profiler sampling interval in microseconds (V8's default is 1000). */
  samplingIntervalUs?: number;
  /**
   * The profiler is stopped and restarted this often so a dropped connection loses only the piece
   * being recorded: `Profiler.stop` returns the whole profile at once, nothing streams before it.
   */
  chunkMs?: number;
  /** Collect scripts' source map URLs with `Debugger.scriptParsed` (default true). */
  sourceMaps?: boolean;
  connectTimeoutMs?: number;
  /** Record a sampling heap profile instead of a CPU profile (bytes between samples, which samples). */
  heap?: { samplingInterval: number; samples: HeapProfileNote['samples'] };
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
  /** Why the session ended early, when it did. */
  lost?: InspectorError;
  /** Script URL → its `sourceMapURL` (a `data:` URL or one relative to the script), as the target reported them. */
  sourceMaps: Record<string, string>;
  startedAt: number;
  durationMs: number;
  nodeVersion?: string;
}

/** A running CPU profile in another process, over the inspector protocol. */
export class AttachSession {
  private readonly parts: CpuProfile[] = [];
  private heapProfile: SamplingHeapProfile | undefined;
  private heap: AttachOptions['heap'];
  private readonly sourceMaps: Record<string, string> = {};
  private lost: InspectorError | undefined;
  private op: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<AttachResult> | undefined;
  private readonly lostListeners: ((e: InspectorError) => void)[] = [];
  readonly startedAt = Date.now();

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
      }
      // Lets a process started with --inspect-wait run; a no-op for running ones.
      await cdp.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    } catch (e) {
      cdp.close();
      throw e;
    }
    const chunkMs = opts.chunkMs ?? 10_000;
    if (chunkMs > 0) s.timer = setInterval(() => void s.rotate(), chunkMs);
    return s;
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
          // Stopping would drop the heap samples so far: a copy of them is kept instead.
          this.heapProfile = (await this.cdp.send<{ profile: SamplingHeapProfile }>('HeapProfiler.getSamplingProfile')).profile;
          return;
        }
        const { profile } = await this.cdp.send<{ profile: CpuProfile }>('Profiler.stop');
        this.parts.push(profile);
        await this.cdp.send('Profiler.start');
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
        this.parts.push(profile);
        await this.cdp.send('Profiler.disable').catch(() => undefined);
        await this.cdp.send('Debugger.disable').catch(() => undefined);
      } catch (e) {
        this.lost = e instanceof InspectorError ? e : new InspectorError('lost', String(e));
      }
    }
    this.cdp.close();
    const profile = this.parts.length ? mergeCpuProfiles(this.parts) : undefined;
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
      parts: this.parts.length,
      lost,
      sourceMaps: { ...this.sourceMaps },
      startedAt: this.startedAt,
      durationMs: Date.now() - this.startedAt,
      nodeVersion: nodeVersionOf(this.target.browser),
    };
  }
}
