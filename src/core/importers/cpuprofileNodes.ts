// A .cpuprofile's nodes as the model's build reads them: links, call frames, hit counts and line ticks in arrays, node
// by node. The streaming reader hands each node here as soon as it is parsed, while it is still in the cache and in
// the young generation: a big profile's 100k node objects die young, instead of being kept, moved to the old
// generation and walked pass after pass.

import type { CpuTreeArrays } from './cpuprofileTree';
import { NodeScanner, type ScannedNodes } from './cpuprofileScan';
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
export const goodTick = (t: PositionTick) => t && Number.isInteger(t.line) && t.line > 0 && (finite(t.ticks) ?? 0) > 0;

function allNumbers(xs: unknown[]): boolean {
  for (let i = 0; i < xs.length; i++) if (typeof xs[i] !== 'number') return false;
  return true;
}

/**
 * A call frame whose fields have the types the model reads: `cf` itself when they have (V8's always do), not copied.
 * Nothing given is changed: a live run's merger hands out its own call frames.
 */
function repairFrame(cf: CallFrame): CallFrame {
  const scriptId = typeof cf.scriptId === 'string' || typeof cf.scriptId === 'number' ? String(cf.scriptId).slice(0, 20) : undefined;
  if (
    typeof cf.functionName === 'string' &&
    typeof cf.url === 'string' &&
    whole(cf.lineNumber) === cf.lineNumber &&
    whole(cf.columnNumber) === cf.columnNumber &&
    scriptId === cf.scriptId
  )
    return cf;
  return {
    functionName: str(cf.functionName),
    url: str(cf.url),
    lineNumber: whole(cf.lineNumber),
    columnNumber: whole(cf.columnNumber),
    scriptId,
  };
}

/** The call frame `text` holds, repaired; undefined when it is no JSON object. */
export function parseFrame(text: string): CallFrame | undefined {
  let cf: unknown;
  try {
    cf = JSON.parse(text);
  } catch {
    return undefined;
  }
  return cf && typeof cf === 'object' ? repairFrame(cf as CallFrame) : undefined;
}

/**
 * Gives each field of a node the model reads the type it expects, or drops it (damaged or hand-edited files); false
 * when it is no node (no numeric "id" or no "callFrame" object).
 */
export function repairNode(n: CpuNode): boolean {
  if (!n || typeof n !== 'object' || typeof n.id !== 'number' || !n.callFrame || typeof n.callFrame !== 'object') return false;
  const cf = repairFrame(n.callFrame);
  if (cf !== n.callFrame) n.callFrame = cf;
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

/** Int32Array while its values are int32 (V8's ids and counts are), a Float64Array from the first that is not. */
type Column = Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/** `a` twice as long, or as a Float64Array as long (`wide`). */
function longer<A extends Column>(a: A, wide = false): A | Float64Array<ArrayBuffer> {
  const b = wide || a instanceof Float64Array ? new Float64Array(a.length * (wide ? 1 : 2)) : new Int32Array(a.length * 2);
  b.set(a);
  return b as A;
}

/** `a` with `v` at `i`: `a` itself, or `a` as a Float64Array when `v` is no int32 (-0 is stored as 0: the same index). */
function put(a: Column, i: number, v: number): Column {
  if ((v | 0) !== v && a instanceof Int32Array) a = longer(a, true);
  a[i] = v;
  return a;
}

type SameFrames = Map<string, Map<string, Map<number | undefined, { column?: number; scriptId?: string | number; at: number }[]>>>;

/** Nodes in arrays (see the top of this file); `frames` holds each distinct call frame once, `frameOf` a node's. */
export class CpuNodeTable implements CpuTreeArrays, Sink, ScannedNodes {
  readonly bulk = true;
  /** The elements given (push), nodes or not. */
  length = 0;
  count = 0;
  // Typed arrays, `count` long (childStart one more, children `childCount`), grown by doubling: no boxed number and no
  // array of 100k elements for the GC to move.
  ids: Column = new Int32Array(1024);
  /** NaN for none. */
  parents: Float64Array<ArrayBuffer> = new Float64Array(1024);
  childStart = new Int32Array(1024);
  children: Column = new Int32Array(1024);
  childCount = 0;
  frameOf = new Int32Array(1024);
  readonly frames: CallFrame[] = [];
  hitCounts: Column = new Int32Array(1024);
  /** The nodes with positionTicks, in order, and their ticks. */
  readonly tickNodes: number[] = [];
  readonly ticks: PositionTick[][] = [];
  /** An element was no node (repairNode): asCpuProfile says so. */
  bad = false;
  private readonly same: SameFrames = new Map();
  private scanner: NodeScanner | undefined;

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

  /** Nodes of V8's plain form read from the bytes (see NodeScanner); the others go through push. */
  scan(b: Buffer, i: number): number {
    if (this.bad) return -1;
    return (this.scanner ??= new NodeScanner(this)).scan(b, i);
  }

  /**
   * A node read from the bytes as it stands (traceNodes.ts): `cf` is repaired, and `shared` its number among frames
   * several tables share, by which it is found again without a lookup by its fields. `parent`: NaN for none.
   */
  pushPlain(id: number, parent: number, cf: CallFrame, shared: number): void {
    this.length++;
    if (this.bad) return;
    if (shared >= this.frameOfShared.length) {
      const grown = new Int32Array(Math.max(2 * this.frameOfShared.length, shared + 1)).fill(-1);
      grown.set(this.frameOfShared);
      this.frameOfShared = grown;
    }
    let f = this.frameOfShared[shared];
    if (f < 0) f = this.frameOfShared[shared] = this.frameIndex(cf);
    this.node(id, parent, f, 0, undefined);
  }

  private frameOfShared = new Int32Array(0);

  private add(n: CpuNode): void {
    const kids = n.children;
    if (Array.isArray(kids)) for (let k = 0; k < kids.length; k++) this.pushChild(kids[k]);
    this.node(n.id, typeof n.parent === 'number' ? n.parent : NaN, this.frameIndex(n.callFrame), n.hitCount as number, n.positionTicks);
  }

  /** A node the scanner read (a repaired one's fields), its children pushed already. */
  addScanned(id: number, parent: number, frame: number, hits: number, ticks: PositionTick[] | undefined): void {
    this.length++;
    this.node(id, parent, frame, hits, ticks);
  }

  pushChild(c: number): void {
    if (this.childCount === this.children.length) this.children = longer(this.children);
    this.children = put(this.children, this.childCount++, c);
  }

  private node(id: number, parent: number, frame: number, hits: number, ticks: PositionTick[] | undefined): void {
    const i = this.count++;
    if (i + 1 >= this.ids.length) this.grow();
    this.ids = put(this.ids, i, id);
    this.parents[i] = parent;
    this.childStart[i + 1] = this.childCount;
    this.frameOf[i] = frame;
    this.hitCounts = put(this.hitCounts, i, hits);
    if (ticks?.length) {
      this.tickNodes.push(i);
      this.ticks.push(ticks);
    }
  }

  private grow(): void {
    this.ids = longer(this.ids);
    this.parents = longer(this.parents);
    this.hitCounts = longer(this.hitCounts);
    const start = new Int32Array(this.childStart.length * 2);
    start.set(this.childStart);
    this.childStart = start;
    const frameOf = new Int32Array(this.frameOf.length * 2);
    frameOf.set(this.frameOf);
    this.frameOf = frameOf;
  }

  /** The index of the call frame `text` holds, parsed and repaired; -1 when it is no JSON object. */
  frameOfText(text: string): number {
    const cf = parseFrame(text);
    return cf ? this.frameIndex(cf) : -1;
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
