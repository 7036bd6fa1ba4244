// A .cpuprofile's nodes as the model's build reads them: links, call frames, hit counts and line ticks in arrays, node
// by node. The streaming reader hands each node here as soon as it is parsed, while it is still in the cache and in
// the young generation: a big profile's 100k node objects die young, instead of being kept, moved to the old
// generation and walked pass after pass.

import type { CpuTreeArrays } from './cpuprofileTree';
import type { Sink } from './jsonScan';

export interface CallFrame {
  functionName?: string;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
  /** A string in V8's output; one per compiled source. */
  scriptId?: string | number;
}

export interface PositionTick {
  line: number;
  ticks: number;
}

export interface CpuNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
  /** Older Chrome exports link upwards instead of listing children. */
  parent?: number;
  positionTicks?: PositionTick[];
}

const str = (x: unknown): string => (typeof x === 'string' ? x : '');
export const finite = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const whole = (x: unknown): number | undefined => (Number.isSafeInteger(x) ? (x as number) : undefined);
const goodTick = (t: PositionTick) => t && Number.isInteger(t.line) && t.line > 0 && (finite(t.ticks) ?? 0) > 0;

function allNumbers(xs: unknown[]): boolean {
  for (let i = 0; i < xs.length; i++) if (typeof xs[i] !== 'number') return false;
  return true;
}

/**
 * Gives each field of a node the model reads the type it expects, or drops it (damaged or hand-edited files); false
 * when it is no node (no numeric "id" or no "callFrame" object).
 */
export function repairNode(n: CpuNode): boolean {
  if (!n || typeof n !== 'object' || typeof n.id !== 'number' || !n.callFrame || typeof n.callFrame !== 'object') return false;
  // A call frame that has them already (V8's always do) is kept, not copied. Nothing given is changed: a live run's
  // merger hands out its own call frames.
  const cf = n.callFrame;
  const scriptId = typeof cf.scriptId === 'string' || typeof cf.scriptId === 'number' ? String(cf.scriptId).slice(0, 20) : undefined;
  if (
    typeof cf.functionName !== 'string' ||
    typeof cf.url !== 'string' ||
    whole(cf.lineNumber) !== cf.lineNumber ||
    whole(cf.columnNumber) !== cf.columnNumber ||
    scriptId !== cf.scriptId
  )
    n.callFrame = {
      functionName: str(cf.functionName),
      url: str(cf.url),
      lineNumber: whole(cf.lineNumber),
      columnNumber: whole(cf.columnNumber),
      scriptId,
    };
  // A field is written only when it changes: adding an absent one, even as undefined, gives each of 100k nodes a new
  // hidden class and a bigger property store.
  const kids = n.children;
  if (kids !== undefined)
    n.children = Array.isArray(kids) ? (allNumbers(kids) ? kids : kids.filter((c) => typeof c === 'number')) : undefined;
  if (n.parent !== undefined) n.parent = finite(n.parent);
  const hits = n.hitCount;
  if (!(typeof hits === 'number' && hits > 0 && hits < Infinity) && !Object.is(hits, 0)) n.hitCount = Math.max(0, finite(hits) ?? 0);
  const ticks = n.positionTicks;
  if (ticks !== undefined) n.positionTicks = Array.isArray(ticks) ? (ticks.every(goodTick) ? ticks : ticks.filter(goodTick)) : undefined;
  return true;
}

type SameFrames = Map<string, Map<string, Map<number | undefined, { column?: number; scriptId?: string | number; at: number }[]>>>;

/** Nodes in arrays (see the top of this file); `frames` holds each distinct call frame once, `frameOf` a node's. */
export class CpuNodeTable implements CpuTreeArrays, Sink {
  readonly bulk = true;
  /** The elements given (push), nodes or not. */
  length = 0;
  count = 0;
  readonly ids: number[] = [];
  /** Doubles from the start (a root's parent is NaN): an array that turned so at its first root threw away code using it. */
  readonly parents: number[] = [NaN].slice(1);
  readonly childStart: number[] = [0];
  readonly children: number[] = [];
  readonly frameOf: number[] = [];
  readonly frames: CallFrame[] = [];
  readonly hitCounts: number[] = [];
  /** The nodes with positionTicks, in order, and their ticks. */
  readonly tickNodes: number[] = [];
  readonly ticks: PositionTick[][] = [];
  /** An element was no node (repairNode): asCpuProfile says so. */
  bad = false;
  private readonly same: SameFrames = new Map();

  /** The nodes of an array, as they are (asCpuProfile has repaired them, or the caller vouches for them). */
  static of(nodes: CpuNode[]): CpuNodeTable {
    const t = new CpuNodeTable();
    for (const n of nodes) t.add(n);
    t.length = nodes.length;
    return t;
  }

  /** A node of the streaming reader: repaired (as asCpuProfile would) and added. */
  push(x: unknown): void {
    this.length++;
    if (this.bad) return;
    if (repairNode(x as CpuNode)) this.add(x as CpuNode);
    else this.bad = true;
  }

  /**
   * A node read from the bytes as it stands (traceNodes.ts): `cf` is repaired, and `shared` its number among frames
   * several tables share, by which it is found again without a lookup by its fields. `parent`: NaN for none.
   */
  pushPlain(id: number, parent: number, cf: CallFrame, shared: number): void {
    this.length++;
    if (this.bad) return;
    this.count++;
    this.ids.push(id);
    this.parents.push(parent);
    this.childStart.push(this.children.length);
    if (shared >= this.frameOfShared.length) {
      const grown = new Int32Array(Math.max(2 * this.frameOfShared.length, shared + 1)).fill(-1);
      grown.set(this.frameOfShared);
      this.frameOfShared = grown;
    }
    let f = this.frameOfShared[shared];
    if (f < 0) f = this.frameOfShared[shared] = this.frameIndex(cf);
    this.frameOf.push(f);
    this.hitCounts.push(0);
  }

  private frameOfShared = new Int32Array(0);

  private add(n: CpuNode): void {
    const i = this.count++;
    this.ids.push(n.id);
    this.parents.push(typeof n.parent === 'number' ? n.parent : NaN);
    const kids = n.children;
    if (Array.isArray(kids)) for (let k = 0; k < kids.length; k++) this.children.push(kids[k]);
    this.childStart.push(this.children.length);
    this.frameOf.push(this.frameIndex(n.callFrame));
    this.hitCounts.push(n.hitCount as number);
    if (n.positionTicks?.length) {
      this.tickNodes.push(i);
      this.ticks.push(n.positionTicks);
    }
  }

  /**
   * The index of `cf` among the distinct call frames (the fields cpuFrame reads), by URL, then name, then line: most
   * lookups end in a list of one; a file's many `(anonymous)` are told apart by line.
   */
  private frameIndex(cf: CallFrame): number {
    const url = cf.url ?? '';
    const name = cf.functionName ?? '';
    let byName = this.same.get(url);
    if (!byName) this.same.set(url, (byName = new Map()));
    let byLine = byName.get(name);
    if (!byLine) byName.set(name, (byLine = new Map()));
    let known = byLine.get(cf.lineNumber);
    if (!known) byLine.set(cf.lineNumber, (known = []));
    for (const k of known) if (k.column === cf.columnNumber && k.scriptId === cf.scriptId) return k.at;
    known.push({ column: cf.columnNumber, scriptId: cf.scriptId, at: this.frames.length });
    return this.frames.push(cf) - 1;
  }
}
