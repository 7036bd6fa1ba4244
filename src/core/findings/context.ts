import type { CallTree, Frame, Profile } from '../model';
import { timelineGaps, type GroupSamples, type TimeGaps } from '../model/processes';
import { functionStats } from '../model/views';
import type { Finding } from './types';

/** Where a finding points: the user's frame above the hot one, and the line in it that leads there. */
export interface Site {
  node: number;
  frame: number;
  file: string;
  line: number;
}

/** Node core scripts that run the entry module: stacks under them are start-up, not a request or a timer. */
const STARTUP = /^(?:node:)?internal\/(?:main\/run_main_module|modules\/run_main)/;
const STARTUP_NAMES = new Set(['executeUserEntryPoint', 'runMain']);
/**
 * The ES module loader, when it is the outermost JavaScript of a stack: it runs from promise jobs, not under the entry
 * module's frames, as it loads, links and evaluates an ES module entry and its imports (or a loader hook's thread
 * does). That is start-up: an ES module server that imports at its top read "loading modules takes 4.6 % after
 * start-up" (prof, 4 s of load). A dynamic import() on a request path runs there too and is not told apart.
 */
const ESM_LOADER = /^(?:node:)?internal\/modules\/esm\//;

/** A gap between two samples longer than this is time the thread was not running (see idle.ts). */
export const IDLE_GAP_MS = 50;

const APP = 1;
const DEP = 2;
const START = 4;
const JS = 8;
const ESM = 16;
/** A frame of JavaScript code (V8's builtins, such as the microtask runner at a promise job's root, are not). */
const JS_CATEGORIES: ReadonlySet<string> = new Set(['app', 'dependency', 'node', 'eval']);

function isUserFrame(f: Frame, category: Frame['category']): boolean {
  // A finding never points into npm's own code (npm start's wrapper); this extension's preload is Node machinery (frame.ts).
  return f.category === category && !!f.file && f.line > 0 && f.pkg !== 'npm';
}

/** What every rule needs to know about a profile's tree, computed once. */
export class FindingContext {
  readonly tree: CallTree;
  readonly frames: Frame[];
  readonly weight: number;
  readonly total: Float64Array;
  /** Per node: the nearest node at or above it in app code with a file and line (a dependency's when no app frame); 0 when none. */
  readonly userNode: Int32Array;
  /** Per node: under the entry module's first run (start-up). */
  readonly startup: Uint8Array;
  private fnTotals?: Map<string, number>;
  private frameTotals?: Float64Array;
  private sampledNodes?: { nodes: ArrayLike<number> | undefined };

  /** `samples`: the profile's samples over time when they are part of a bigger timeline (a process of a run). */
  constructor(
    readonly profile: Profile,
    private readonly samples?: Pick<GroupSamples, 'gaps' | 'nodes'>,
  ) {
    const t = (this.tree = profile.tree);
    this.frames = profile.frames;
    this.total = t.total;
    this.weight = t.weight;
    // Per frame first: a profile has far fewer frames than nodes, and the tests are regular expressions.
    const kind = new Uint8Array(this.frames.length);
    this.frames.forEach((f, i) => {
      kind[i] =
        (isUserFrame(f, 'app') ? APP : 0) |
        (isUserFrame(f, 'dependency') ? DEP : 0) |
        (STARTUP.test(f.file) || (f.category === 'node' && STARTUP_NAMES.has(f.name)) ? START : 0) |
        (JS_CATEGORIES.has(f.category) ? JS : 0) |
        (f.category === 'node' && ESM_LOADER.test(f.file) ? ESM : 0);
    });
    // Per node: some JavaScript is at or below it on its stack (a caller), so an ES loader frame above is not outermost.
    const js = new Uint8Array(t.count);
    const app = new Int32Array(t.count);
    const dep = new Int32Array(t.count);
    this.startup = new Uint8Array(t.count);
    // Parents come before children, so one pass in id order sees every ancestor first.
    for (let n = 1; n < t.count; n++) {
      const p = t.parent[n];
      const k = kind[t.frame[n]] ?? 0;
      app[n] = k & APP ? n : app[p];
      dep[n] = k & DEP ? n : dep[p];
      this.startup[n] = this.startup[p] | (k & START || (k & ESM && !js[p]) ? 1 : 0);
      js[n] = js[p] | (k & JS ? 1 : 0);
    }
    for (let n = 1; n < t.count; n++) if (!app[n]) app[n] = dep[n];
    this.userNode = app;
  }

  share(w: number): number {
    return this.weight > 0 ? w / this.weight : 0;
  }

  /** Nodes whose frame `match`es with no matching ancestor, so each sample counts once. */
  outermost(match: (f: Frame, frame: number) => boolean): number[] {
    const t = this.tree;
    // Asked once per frame, not once per node.
    const matches = new Uint8Array(this.frames.length);
    this.frames.forEach((f, i) => (matches[i] = match(f, i) ? 1 : 0));
    const inside = new Uint8Array(t.count);
    const out: number[] = [];
    for (let n = 1; n < t.count; n++) {
      if (inside[t.parent[n]]) {
        inside[n] = 1;
        continue;
      }
      if (matches[t.frame[n]]) {
        inside[n] = 1;
        if (this.total[n] > 0) out.push(n);
      }
    }
    return out;
  }

  /** Nodes below `node` (itself included). */
  subtree(node: number): number[] {
    const out: number[] = [];
    const todo = [node];
    while (todo.length) {
      const n = todo.pop()!;
      out.push(n);
      for (const c of this.tree.children(n)) todo.push(c);
    }
    return out;
  }

  /** Groups findings by the user's function above `node` (its frames differ by tier and column); '' when none. */
  siteKey(node: number): string {
    const u = this.userNode[node];
    return u ? functionKey(this.frames[this.tree.frame[u]]) : '';
  }

  /** The user's frame above `node` and the line in it that leads to `weight` samples below. */
  site(node: number, weight: number): Site | undefined {
    const u = this.userNode[node];
    if (!u) return undefined;
    const frame = this.tree.frame[u];
    const f = this.frames[frame];
    return { node: u, frame, file: f.file, line: this.callLine(f, weight) };
  }

  /** Where a finding about `weight` samples under `node` points: the user's line above it, and `node`'s frame to select. */
  place(node: number, weight: number): Pick<Finding, 'file' | 'line' | 'frame'> {
    const site = this.site(node, weight);
    return { file: site?.file, line: site?.line, frame: this.tree.frame[node] };
  }

  /**
   * The line in function `f` that leads to `weight` samples. The model keeps inclusive hits per line,
   * not per call edge: the line at or after the function's start whose inclusive hits cover most of
   * `weight` without exceeding the function's own total is the call. Falls back to the function's line.
   */
  callLine(f: Frame, weight: number): number {
    const hits = this.profile.lineHits.get(f.file);
    if (!hits || weight <= 0) return f.line;
    const limit = this.functionTotal(f) * 1.001 + 1;
    // The nearest such line: a later line of another function can carry as many hits.
    let best = f.line;
    let bestLine = Infinity;
    for (const [line, h] of hits) {
      const v = h.total || h.self;
      if (line < f.line || v < weight * 0.5 || v > limit) continue;
      if (line < bestLine) bestLine = best = line;
    }
    return best;
  }

  /**
   * How many separate times the samples under `nodes` ran (runs of consecutive samples in the timeline);
   * undefined without a timeline.
   */
  bursts(nodes: number[]): number | undefined {
    // A process's nodes are a pass over the run's timeline: made once for all its calls.
    const sampled = this.samples ? (this.sampledNodes ??= { nodes: this.samples.nodes() }).nodes : this.profile.timeline?.nodes;
    if (!sampled) return undefined;
    const inside = new Uint8Array(this.tree.count);
    for (const n of nodes) for (const m of this.subtree(n)) inside[m] = 1;
    let count = 0;
    let prev = false;
    for (let i = 0; i < sampled.length; i++) {
      const now = inside[sampled[i]] === 1;
      if (now && !prev) count++;
      prev = now;
    }
    return count;
  }

  /** The gaps over IDLE_GAP_MS between the samples, and their span; undefined without a timeline or under two samples. */
  idleGaps(): TimeGaps | undefined {
    if (this.samples) return this.samples.gaps;
    const tl = this.profile.timeline;
    return tl && timelineGaps(tl, IDLE_GAP_MS);
  }

  /** Samples with the function on the stack (all its frames: tiers, columns). */
  functionTotal(f: Frame): number {
    if (!this.fnTotals) {
      this.fnTotals = new Map();
      for (const s of functionStats(this.tree, this.frames.length)) {
        const g = this.frames[s.frame];
        const k = functionKey(g);
        this.fnTotals.set(k, (this.fnTotals.get(k) ?? 0) + s.total);
      }
    }
    return this.fnTotals.get(functionKey(f)) ?? 0;
  }

  /** Samples with this frame on the stack, each counted once. */
  frameTotal(frame: number): number {
    if (!this.frameTotals) {
      this.frameTotals = new Float64Array(this.frames.length);
      for (const s of functionStats(this.tree, this.frames.length)) this.frameTotals[s.frame] = s.total;
    }
    return this.frameTotals[frame] ?? 0;
  }
}

export function functionKey(f: Frame): string {
  return `${f.name}\0${f.file}\0${f.line}`;
}

/** Groups weights by key, remembering the heaviest node of each group. */
export class Groups<T> {
  readonly map = new Map<string, { w: number; node: number; nodeW: number; data: T }>();

  add(key: string, w: number, node: number, data: T): void {
    const g = this.map.get(key);
    if (!g) this.map.set(key, { w, node, nodeW: w, data });
    else {
      g.w += w;
      if (w > g.nodeW) {
        g.node = node;
        g.nodeW = w;
      }
    }
  }

  values() {
    return [...this.map.values()];
  }
}
