import { printable } from '../chars';
import { CallTree } from './callTree';
import { Frame, FrameTable } from './frame';
import type { SampleType, WeightUnit } from './units';
import type { RequestLog } from './requests';
import { sampleCount, type PackedTimes } from './mergedTimes';
import { threadLevelFrame } from './threadLevel';

export type ProfileFormat = 'cpuprofile' | 'v8log' | 'perf' | 'folded' | 'pprof' | 'heapprofile' | 'chrome-trace' | 'speedscope';

/** A sample label a profile carries (pprof: `thread name`, `span id`, `trace endpoint`, …) and its heaviest values. */
export interface LabelInfo {
  key: string;
  /** Heaviest first, at most a few dozen; `distinct` says how many there were. */
  values: { value: string; weight: number }[];
  distinct: number;
}

export interface ProfileMeta {
  /** Where the profile came from, when it came from a file. */
  source?: string;
  nodeVersion?: string;
  /** The V8 version the profile names (a tick log names V8, not Node.js). */
  v8Version?: string;
  /** Wall-clock span of the samples; null when the format has no timestamps. */
  durationMs: number | null;
  /** Sampling interval in ms when known (cpuprofile mean delta, --prof interval, perf -F). */
  intervalMs?: number;
  /** A sampling heap profile's average bytes between two samples, when the file says. */
  intervalBytes?: number;
  command?: string;
  /**
   * How many samples were taken, when weights are not sample counts (perf weights by period):
   * reports that speak in ticks scale weights by sampleCount / total weight.
   */
  sampleCount?: number;
  mode?: 'prof' | 'perf' | 'cpu-prof' | 'heap' | 'attach';
  /**
   * When the timeline's 0 is, on the format's clock: epoch ms (pprof, a marked tick log, a run's merged
   * processes) or V8's monotonic clock (a .cpuprofile); see isEpochMs.
   */
  startTime?: number;
  /**
   * perf: the timestamp (ms) of the timeline's 0 on perf's clock; CLOCK_MONOTONIC in Node Flame's runs
   * (`perf record -k mono`), where the run's other files (HTTP requests) are put on the samples' axis with it.
   */
  perfStartMs?: number;
  /** What the tree's weights count; samples when not given. */
  unit?: WeightUnit;
  /** Every value type the file carries (pprof) and the one the tree was built from. */
  sampleTypes?: SampleType[];
  sampleType?: string;
  /** Sample labels the file carries (pprof); those naming threads also split the tree by thread. */
  labels?: LabelInfo[];
  /** Set when the profile was cut to a time range (ms from the first sample): what it covers. */
  range?: { from: number; to: number };
  /** Set when the profile was cut to the samples of some HTTP routes (`GET /auth`; see requests.ts). */
  routes?: string[];
  /** The Node processes of a run read as one (a command's process tree); threads carry their pid. */
  processes?: ProcessMeta[];
  /** What frames could not be named, and why (also among the warnings): the run's notification says it. */
  unnamed?: string[];
}

/** True for a `startTime` on the wall clock (after 2001) rather than a monotonic clock counted from boot. */
export function isEpochMs(t: number | undefined): t is number {
  return t !== undefined && t > 1e12;
}

export interface ProcessMeta {
  pid: number;
  /** null when the parent is not known (a process perf saw that did not record itself). */
  ppid: number | null;
  /** The parent's parent and up, when known: the picker nests a process under the nearest one of the run. */
  ancestors?: number[];
  command: string;
  /** ISO time it started, when it recorded itself (orders a watch mode's incarnations). */
  startedAt?: string;
  /** It only waited for the processes it started (see waitingProcesses): its samples and idle share, kept when it is left out. */
  waited?: { samples: number; idle: number };
}

export interface Thread {
  name: string;
  pid?: number;
  tid?: number;
  /** First tree node of this thread: a child of the root when the profile has several threads. */
  samples: number;
}

/**
 * Per-line sample counts of one file (1-based lines): the line being executed in the leaf frame,
 * or in any frame when `inclusive` is counted separately.
 */
export type LineHits = Map<string, Map<number, { self: number; total: number }>>;

/** One deoptimization V8 logged (`code-deopt`, with `--log-deopt`): optimized code of a function thrown away. */
export interface Deopt {
  /** Frame of the function whose optimized code was dropped. */
  frame: number;
  /** ms on the log's clock. */
  timeMs: number;
  /** V8's bailout kind: `deopt-eager`, `deopt-lazy`, `deopt-soft`, `dependency-change`… */
  kind: string;
  reason: string;
  /** Where the bailout happened in that function (the call of the inlined callee, when it bailed out in one); line and column 0 when unknown. */
  file: string;
  line: number;
  column: number;
}

/**
 * The one model every importer produces and every view reads. Threads share the frame table and
 * the tree: with more than one thread, each thread is a root child whose frame has category
 * `program` and name `thread <name>`.
 */
export interface Profile {
  format: ProfileFormat;
  meta: ProfileMeta;
  frames: Frame[];
  tree: CallTree;
  threads: Thread[];
  lineHits: LineHits;
  /** Partial input, skipped records, unresolved addresses: said once each, in plain words. */
  warnings: string[];
  /**
   * Optional per-sample timeline: leaf node per sample and its timestamp (ms from start), in time order;
   * `weights` when a sample weighs other than 1 (perf periods). `packed`: a merged run's times held narrow until
   * `times` is first read (see mergedTimes.ts); not enumerable, and gone once `times` is read.
   */
  timeline?: { nodes: Uint32Array; times: Float64Array; weights?: Float64Array; packed?: PackedTimes };
  /** Deoptimizations, in log order, when the log has them. */
  deopts?: Deopt[];
  /** Each thread's own line hits, by thread name, when several profiles were merged (a run's processes). */
  threadLineHits?: Map<string, LineHits>;
  /** The HTTP requests a launched run's processes served, and when each one's code ran (see requests.ts). */
  requests?: RequestLog;
}

/** Shared builder importers use, so each only speaks its format. */
export class ProfileBuilder {
  readonly frames = new FrameTable();
  readonly tree = new CallTree();
  readonly lineHits: LineHits = new Map();
  readonly warnings: string[] = [];
  readonly deopts: Deopt[] = [];
  /** Set by an importer whose samples have times; node ids of this builder's tree (build() keeps them in step). */
  timeline?: Profile['timeline'];
  private readonly threadRoots = new Map<string, { root: number; thread: Thread; frame: number }>();

  constructor(
    readonly format: ProfileFormat,
    readonly meta: ProfileMeta = { durationMs: null },
  ) {}

  frame(f: Frame): number {
    return this.frames.intern(f);
  }

  /** Adds a sample; `stack` is root-most first. `thread` keeps threads apart when given. */
  sample(stack: ArrayLike<number>, weight = 1, timeMs = 0, thread?: string): number {
    if (thread === undefined) return this.tree.addStack(stack, weight, timeMs);
    const t = this.threadNode(thread);
    t.thread.samples += weight;
    let node = t.root;
    for (let i = 0; i < stack.length; i++) node = this.tree.child(node, stack[i]);
    this.tree.addSelf(node, weight, timeMs);
    return node;
  }

  /** The node a thread's samples hang from (the root without a thread): `sample` with a stack walked from here. */
  rootOf(thread?: string): number {
    return thread === undefined ? 0 : this.threadNode(thread).root;
  }

  private threadNode(name: string) {
    let t = this.threadRoots.get(name);
    if (!t) {
      const frame = this.frames.intern(threadLevelFrame(name));
      t = { root: this.tree.child(0, frame), thread: { name, samples: 0 }, frame };
      this.threadRoots.set(name, t);
    }
    return t;
  }

  threadInfo(name: string, info: Partial<Thread>): void {
    Object.assign(this.threadNode(name).thread, info);
  }

  lineHit(file: string, line: number, self: number, total: number): void {
    if (!file || line <= 0) return;
    let m = this.lineHits.get(file);
    if (!m) this.lineHits.set(file, (m = new Map()));
    const h = m.get(line);
    if (h) {
      h.self += self;
      h.total += total;
    } else m.set(line, { self, total });
  }

  private readonly warned = new Set<string>();

  warn(message: string): void {
    message = oneLine(message);
    // A Set, not warnings.includes: damaged input can give tens of thousands of distinct warnings.
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warnings.push(message);
  }

  build(): Profile {
    let threads = [...this.threadRoots.values()].map((t) => t.thread);
    let tree = this.tree;
    let timeline = this.timeline;
    // A single named thread is not worth a level in the graph: fold its node away.
    if (threads.length === 1) {
      const only = [...this.threadRoots.values()][0];
      const src = tree;
      const moved = new Int32Array(src.count);
      tree = src.rewrite((i, p, out) => (moved[i] = src.frame[i] === only.frame ? p : out.child(p, src.frame[i])));
      if (timeline) timeline = { ...timeline, nodes: timeline.nodes.map((n) => Math.max(0, moved[n])) };
    }
    if (threads.length === 0) threads = [{ name: 'main', samples: tree.weight }];
    const profile: Profile = {
      format: this.format,
      meta: this.meta,
      frames: this.frames.frames,
      tree,
      threads,
      lineHits: this.lineHits,
      warnings: this.warnings,
    };
    if (this.deopts.length) profile.deopts = this.deopts;
    // A merged run's packed times are not unpacked to be counted.
    if (timeline && sampleCount(timeline)) profile.timeline = timeline;
    return profile;
  }
}

/**
 * Messages quote names and text from the input, which may hold line breaks and terminal escapes:
 * show control characters as `\xHH` so a message stays one line and cannot drive a terminal.
 */
export function oneLine(s: string): string {
  // Only the head of a long text is escaped and kept: a message quoting a damaged profile's
  // megabyte-long name is read, not parsed.
  const long = s.length > MAX_MESSAGE;
  s = printable(long ? s.slice(0, MAX_MESSAGE) : s);
  return long || s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s;
}

const MAX_MESSAGE = 900;

/** Thrown for input that cannot become a profile at all; the CLI prints `message` and exits 2. */
export class ProfileError extends Error {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(oneLine(message));
    this.name = 'ProfileError';
  }
}
