import { CallTree } from './callTree';
import { Frame, FrameTable } from './frame';

export type ProfileFormat = 'cpuprofile' | 'v8log' | 'perf' | 'folded';

export interface ProfileMeta {
  /** Where the profile came from, when it came from a file. */
  source?: string;
  nodeVersion?: string;
  /** Wall-clock span of the samples; null when the format has no timestamps. */
  durationMs: number | null;
  /** Sampling interval in ms when known (cpuprofile mean delta, --prof interval, perf -F). */
  intervalMs?: number;
  command?: string;
  /**
   * How many samples were taken, when weights are not sample counts (perf weights by period):
   * reports that speak in ticks scale weights by sampleCount / total weight.
   */
  sampleCount?: number;
  mode?: 'prof' | 'perf' | 'cpu-prof' | 'attach';
  startTime?: number;
  /** The Node processes of a run read as one (a command's process tree); threads carry their pid. */
  processes?: ProcessMeta[];
}

export interface ProcessMeta {
  pid: number;
  /** null when the parent is not known (a process perf saw that did not record itself). */
  ppid: number | null;
  command: string;
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
  /** Optional per-sample timeline: leaf node per sample and its timestamp (ms from start). */
  timeline?: { nodes: Uint32Array; times: Float64Array };
}

/** Shared builder importers use, so each only speaks its format. */
export class ProfileBuilder {
  readonly frames = new FrameTable();
  readonly tree = new CallTree();
  readonly lineHits: LineHits = new Map();
  readonly warnings: string[] = [];
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

  private threadNode(name: string) {
    let t = this.threadRoots.get(name);
    if (!t) {
      const frame = this.frames.intern({ name: `thread ${name}`, file: '', line: 0, column: 0, category: 'program' });
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

  warn(message: string): void {
    message = oneLine(message);
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  build(): Profile {
    let threads = [...this.threadRoots.values()].map((t) => t.thread);
    let tree = this.tree;
    // A single named thread is not worth a level in the graph: fold its node away.
    if (threads.length === 1) {
      const only = [...this.threadRoots.values()][0];
      tree = tree.remap((f) => (f === only.frame ? -1 : f));
    }
    if (threads.length === 0) threads = [{ name: 'main', samples: tree.weight }];
    return {
      format: this.format,
      meta: this.meta,
      frames: this.frames.frames,
      tree,
      threads,
      lineHits: this.lineHits,
      warnings: this.warnings,
    };
  }
}

/**
 * Messages quote names and text from the input, which may hold line breaks and terminal escapes:
 * show control characters as `\xHH` so a message stays one line and cannot drive a terminal.
 */
export function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

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
