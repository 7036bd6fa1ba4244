import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import * as l10n from '@vscode/l10n';
import { oneLine, ProfileBuilder, ProfileError, type Profile } from '../../model';
import type { ImportOptions } from '../types';
import { afterImport } from '../index';
import { splitLines } from '../lines';
import { IsolateLog } from './isolate';
import { logThreadMark } from './clock';
import { NativeResolver } from './native';
import { readProcMaps, type Mapping } from './procMaps';
import { parseLogName, procMapsBeside, siblingLogs } from './siblings';
import { mergeTimelines, TimelineBuilder } from './timeline';
import { LogWritingMeter } from './logWriting';

/** Worker isolates compile Node's worker bootstrap script early (in a log's first 4 MiB); the main isolate never does. */
const WORKER_SCRIPT = Buffer.from('node:internal/main/worker_thread');
const WORKER_SCAN = 4 << 20;
/** Bytes read at a time: a read holds no more of a log than this and the line it ends in. */
const STEP = 4 << 20;

interface LogState {
  path: string;
  worker: boolean;
  /** Its thread's name when the process has several isolates' logs. */
  thread: string | undefined;
  iso: IsolateLog;
  /** Its samples' times from its own first tick (each log has its own clock: see threadsTimeline). */
  timeline: TimelineBuilder;
  /**
   * The libraries this isolate's log lists, its own: an isolate's answers depend on its log alone. Shared, a worker's
   * log listing the main isolate's copy of the builtins changed how the main isolate's later ticks were read, so a
   * live read (the logs read in turns) and a whole read (one log after the other) of the same bytes disagreed.
   */
  native: NativeResolver;
  /** Bytes of the file read so far, and those of them after the last line break (a line V8 is still writing). */
  offset: number;
  rest: Buffer | undefined;
  mapsApplied: boolean;
  records: number;
}

/** How a whole read reads a log: to its end, cancellable, telling its progress. */
interface WholeRead {
  signal?: AbortSignal;
  onRead: (bytes: number) => void;
}

/** A live log is only read if it is a regular file reached without a link; a log named to `report` may be a link. */
/** The share of ticks in V8's log writer from which the reader says so (sass: 12 %; tsc's long run: see the test). */
const LOG_WRITING_NOTE_SHARE = 0.03;

function openRegular(path: string, follow = false): number | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | (follow ? 0 : (constants.O_NOFOLLOW ?? 0)) | (constants.O_NONBLOCK ?? 0));
    if (fstatSync(fd).isFile()) return fd;
    closeSync(fd);
  } catch {
    // gone, or not a file
  }
  return undefined;
}

function headHas(offset: number, head: Buffer): boolean {
  return offset < WORKER_SCAN && head.includes(WORKER_SCRIPT);
}

/**
 * The one reader of a process's tick logs. A whole read (`V8LogTail.whole`, the importer) feeds each log to its end
 * and finishes; a live prof run's `read` feeds the lines appended since the last read to the same isolate readers
 * and answers the profile of every line so far as a whole read of the files as they are would (a cut-off last line
 * is left for the next read). What is kept between reads is the readers' model (code map, stacks, samples), never
 * the bytes read.
 */
export class V8LogTail {
  private logs: LogState[] = [];
  private key = '';
  private builder!: ProfileBuilder;
  private logWriting!: LogWritingMeter;
  private maps: Mapping[] | null = null;
  /** Whether the proc-maps file was there when the logs were first read (it is written at the process's exit). */
  private mapsThere = false;
  private opts: ImportOptions = {};

  constructor(readonly path: string) {}

  /** loadV8Log: the log and its process's other isolates' logs, each read to its end. */
  static async whole(path: string, opts: ImportOptions): Promise<Profile> {
    const t = new V8LogTail(path);
    t.opts = opts;
    await t.start(await siblingLogs(path), opts.signal, true);
    const sizes = t.logs.map((l) => {
      const fd = openRegular(l.path, true);
      if (fd === undefined) return 0;
      try {
        return fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
    });
    const totalBytes = sizes.reduce((a, b) => a + b, 0) || 1;
    let done = 0;
    const cut: string[] = [];
    for (const [i, log] of t.logs.entries()) {
      await t.feed(log, { signal: opts.signal, onRead: (n) => opts.onProgress?.(Math.min(1, (done + n) / totalBytes)) });
      // At the end of the file a lone `\r` ends a line; what is left after the last line break was cut off.
      const rest = log.rest ?? Buffer.alloc(0);
      cut.push(rest.subarray(await splitLines(rest, true, 'tail', t.onLine(log))).toString('latin1'));
      log.rest = undefined;
      if (t.maps && !log.mapsApplied) log.native.useProcMaps(t.maps);
      done += sizes[i];
      if (i === 0 && !log.iso.version)
        throw new ProfileError(l10n.t('not a V8 tick log: it does not start with a v8-version line'), log.path);
    }
    return t.profile(cut);
  }

  /** The profile of the log (and its process's other isolates' logs) as written so far. */
  async read(opts: ImportOptions = {}): Promise<Profile> {
    this.opts = opts;
    const paths = await siblingLogs(this.path);
    const mapsPath = opts.mapsFile ?? procMapsBeside(this.path);
    // The maps are saved at exit: once there, the logs are read again from the start with them, as a whole read is.
    const mapsThere = mapsPath !== null && existsSync(mapsPath);
    for (let again = false; ; again = true) {
      // Another isolate's log, or a log rewritten from the start: read from the start, in the whole read's order.
      if (again || paths.join('\0') !== this.key || mapsThere !== this.mapsThere) await this.start(paths);
      let fine = true;
      for (const log of this.logs) if (!(fine = await this.feed(log))) break;
      if (fine || again) break;
    }
    return afterImport(this.path, this.profile(), opts);
  }

  private async start(paths: string[], signal?: AbortSignal, follow = false): Promise<void> {
    const head = (p: string): { worker: boolean; threadId?: number } => {
      const fd = openRegular(p, follow);
      if (fd === undefined) return { worker: false };
      try {
        const buf = Buffer.alloc(WORKER_SCAN);
        const got = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
        return { worker: headHas(0, got), threadId: logThreadMark(got) };
      } finally {
        closeSync(fd);
      }
    };
    // Main isolate first, then workers by thread id where the preload marked it, else in a stable order.
    const tagged = paths.map((path) => ({ path, ...(paths.length > 1 ? head(path) : { worker: false }) }));
    const byId = (t: { threadId?: number }) => t.threadId ?? Infinity;
    tagged.sort((a, b) => Number(a.worker) - Number(b.worker) || byId(a) - byId(b) || a.path.localeCompare(b.path));
    const marked = new Set(tagged.map((t) => t.threadId));
    this.key = paths.join('\0');
    this.builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof', source: this.path });
    this.logWriting = new LogWritingMeter();
    const mapsPath = this.opts.mapsFile ?? procMapsBeside(this.path);
    this.mapsThere = mapsPath !== null && existsSync(mapsPath);
    this.maps = mapsPath ? await readProcMaps(mapsPath) : null;
    const threaded = tagged.length > 1;
    const pid = parseLogName(this.path)?.pid;
    let workerNo = 0;
    // Numbered by threadId (cpu-prof's `thread N`); an unmarked log (written before the mark, or without the preload)
    // takes the next number no marked log has.
    const nextNo = (): number => {
      while (marked.has(++workerNo));
      return workerNo;
    };
    this.logs = tagged.map((t, i) => {
      const threadId = !threaded ? undefined : i === 0 && !t.worker ? 0 : (t.threadId ?? nextNo());
      const thread =
        threadId === undefined
          ? undefined
          : (pid !== undefined && this.opts.threadLabel?.({ pid, threadId })) || (threadId === 0 ? 'main' : `worker ${threadId}`);
      if (thread) this.builder.threadInfo(thread, { pid });
      // A live read's resolver outlives the read whose signal it would take.
      const native = new NativeResolver(signal, !this.opts.untrusted);
      const timeline = new TimelineBuilder();
      const iso = new IsolateLog({ builder: this.builder, native, thread, timeline });
      return {
        path: t.path,
        worker: t.worker,
        thread,
        iso,
        timeline,
        native,
        offset: 0,
        rest: undefined,
        mapsApplied: false,
        records: 0,
      };
    });
  }

  /** Feeds a log's complete new lines; false when the log must be read again from the start. */
  private async feed(log: LogState, whole?: WholeRead): Promise<boolean> {
    const fd = openRegular(log.path, whole !== undefined);
    if (fd === undefined) return true;
    try {
      const size = fstatSync(fd).size;
      if (size < log.offset) return false;
      const onLine = this.onLine(log);
      while (log.offset < size) {
        if (whole?.signal?.aborted) throw new ProfileError(l10n.t('cancelled'), log.path);
        const kept = log.rest?.length ?? 0;
        const buf = Buffer.allocUnsafe(kept + Math.min(STEP, size - log.offset));
        log.rest?.copy(buf, 0);
        const n = readSync(fd, buf, kept, buf.length - kept, log.offset);
        if (n === 0) break;
        // A worker's log that showed no sign of it when the order was set now does: the order changes.
        if (!whole && this.logs.length > 1 && !log.worker && headHas(log.offset - kept, buf.subarray(0, kept + n))) return false;
        log.offset += n;
        const data = buf.subarray(0, kept + n);
        const pos = await splitLines(data, false, 'tail', onLine);
        // Copied: the part left must not hold the whole buffer.
        log.rest = pos < data.length ? Buffer.from(data.subarray(pos)) : undefined;
        whole?.onRead(log.offset - (log.rest?.length ?? 0));
      }
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** A log's lines to its reader; the saved maps are applied once V8 listed its libraries, so known paths match. */
  private onLine(log: LogState): (buf: Buffer, start: number, end: number) => void | Promise<void> {
    const seen = (line: string) => {
      if (this.maps && !log.mapsApplied && line.startsWith('shared-library-end')) {
        log.native.useProcMaps(this.maps);
        log.mapsApplied = true;
      }
    };
    return (buf, start, end) => {
      log.records++;
      return log.iso.lineAt(buf, start, end, seen);
    };
  }

  /**
   * The profile of the lines fed so far. A whole read's (`cut`: each log's cut-off last line) is built on the builder
   * itself; a live read's is made of copies, as the readers read on: call-site inference is redone over all calls
   * seen at each read, and its hits go to this read's copy, never to the builder.
   */
  private profile(cut?: string[]): Profile {
    const final = cut !== undefined;
    const b = this.builder;
    const first = this.logs[0];
    if (!first || first.records === 0) throw new ProfileError(l10n.t('the log is empty'), this.path);
    if (!first.iso.version) throw new ProfileError(l10n.t('not a V8 tick log: it does not start with a v8-version line'), first.path);
    const inferred: [string, number, number][] = [];
    const hit = final ? (file: string, line: number, total: number) => b.lineHit(file, line, 0, total) : undefined;
    for (const log of this.logs) log.iso.finishSoFar(hit ?? ((file, line, total) => inferred.push([file, line, total])));
    const warnings = final ? b.warnings : [...b.warnings];
    const seen = new Set(warnings);
    const warn = (w: string): void => {
      if (final) return b.warn(w);
      w = oneLine(w);
      if (!seen.has(w)) warnings.push(w);
      seen.add(w);
    };
    for (const [i, log] of this.logs.entries()) {
      if (log.thread) b.threadInfo(log.thread, { samples: log.iso.samples });
      const tail = cut?.[i];
      if (tail?.trim())
        warn(
          l10n.t(
            '{0} ends in the middle of a "{1}" record (the log was cut off); that last line was skipped',
            basename(log.path),
            tail.split(',')[0].slice(0, 40),
          ),
        );
      for (const n of log.iso.notes(basename(log.path), this.maps !== null)) warn(n);
    }
    for (const log of this.logs) for (const w of log.native.warnings) warn(w);
    // At every read, live or whole, so that both say the same (a walk of the tree, as the live copy below is).
    const all = b.tree.weight;
    const logging = all > 0 ? this.logWriting.weight(b.tree, b.frames.frames) / all : 0;
    if (logging >= LOG_WRITING_NOTE_SHARE)
      warn(
        l10n.t(
          "{0} of the ticks were V8 writing its own log (the records of the code it compiled, which the tick profiler writes in the app's thread): the profiler's cost, not the app's. The cpu-prof and perf modes pay little of it",
          `${(logging * 100).toFixed(1)} %`,
        ),
      );
    const iso = first.iso;
    const threads = this.threadsTimeline();
    const timeline = threads?.timeline ?? this.soleTimeline();
    const meta = {
      // The log names V8 (`-node.38` builds too), not the Node.js release: the run's own record says that one.
      v8Version: iso.version,
      // The wall-clock time of the timeline's 0 (the first tick), when the preload marked the log's clock.
      ...(iso.clock && !isNaN(iso.firstTs) ? { startTime: iso.clock.epochMs + (iso.firstTs - iso.clock.ts) / 1000 } : {}),
      durationMs: iso.samples > 1 ? (iso.maxTs - iso.minTs) / 1000 : null,
      intervalMs: iso.intervalUs / 1000 || undefined,
      ...(threads ? { startTime: threads.startTime, durationMs: threads.durationMs } : {}),
    };
    const noTicks = l10n.t('the log has no ticks: was node run with --prof, and did it run long enough to be sampled?');
    if (final) {
      Object.assign(b.meta, meta);
      if (b.tree.weight === 0) warn(noTicks);
      const profile = b.build();
      if (timeline) profile.timeline = timeline;
      return profile;
    }
    const lineHits = new Map([...b.lineHits].map(([file, m]) => [file, new Map([...m].map(([line, h]) => [line, { ...h }]))]));
    for (const [file, line, total] of inferred) {
      let m = lineHits.get(file);
      if (!m) lineHits.set(file, (m = new Map()));
      const h = m.get(line);
      if (h) h.total += total;
      else m.set(line, { self: 0, total });
    }
    // The tree copied first: its totals are the copy's, never worked out on the builder's tree that grows on.
    const live = b.tree;
    const tree = live.rewrite((i, p, out) => out.child(p, live.frame[i]));
    if (tree.weight === 0) warn(noTicks);
    // build() names the one thread of a log read alone by its tree's weight: here the copy's.
    const built = this.logs.length > 1 ? b.build() : undefined;
    const profile: Profile = {
      format: b.format,
      meta: { ...b.meta, ...meta },
      // The same node ids (a builder's nodes are distinct and made parents first), in a tree of this read's own.
      tree,
      frames: b.frames.frames.map((f) => ({ ...f, ...(f.generated ? { generated: { ...f.generated } } : {}) })),
      threads: built ? built.threads.map((t) => ({ ...t })) : [{ name: 'main', samples: tree.weight }],
      lineHits,
      warnings,
    };
    if (b.deopts.length) profile.deopts = b.deopts.map((d) => ({ ...d }));
    if (timeline) profile.timeline = timeline;
    return profile;
  }

  /**
   * The samples of a process's isolates on one axis, from the earliest first tick. Each log counts time from its own
   * logger's start; the preload's clock mark in each ties it to the wall clock. Without a mark in every log that ticked
   * (a log not written under the launcher), there is no common axis: no timeline, as before.
   */
  private threadsTimeline(): { timeline: { nodes: Uint32Array; times: Float64Array }; startTime: number; durationMs: number } | undefined {
    if (this.logs.length < 2) return undefined;
    const ticked = this.logs.filter((l) => l.timeline.length > 0);
    if (!ticked.length || ticked.some((l) => !l.iso.clock || isNaN(l.iso.firstTs))) return undefined;
    const starts = ticked.map((l) => l.iso.clock!.epochMs + (l.iso.firstTs - l.iso.clock!.ts) / 1000);
    const startTime = Math.min(...starts);
    const timeline = mergeTimelines(ticked.map((l, i) => ({ ...l.timeline.finish(), offsetMs: starts[i] - startTime })));
    const n = timeline.times.length;
    return { timeline, startTime, durationMs: n > 1 ? timeline.times[n - 1] - timeline.times[0] : 0 };
  }

  /** A process of one isolate: its log's times as they are, clock mark or not. */
  private soleTimeline(): { nodes: Uint32Array; times: Float64Array } | undefined {
    const tl = this.logs.length === 1 ? this.logs[0].timeline : undefined;
    return tl?.length ? tl.finish() : undefined;
  }
}
