// A .cpuprofile's nodes read straight from the bytes into the node table, in the plain form V8 writes them: JSON.parse
// of the nodes array was a third of the reading of a 32 MB profile, and its 100k node objects, each with a call frame
// object and a children array, most of the garbage. A call frame is known by its bytes: those of one seen before give
// its index without a string or an object; only a new one is parsed (100k nodes share a few hundred call frames).

import { goodTick, type PositionTick } from './cpuprofileNodes';
import { FrameBytes } from './frameBytes';
import { plain, plainInt } from './numberList';

/** What the scanner adds a node to (CpuNodeTable): its children have been pushed (pushChild) already. */
export interface ScannedNodes {
  /** The children pushed so far; set back to drop those of a node not read after all. */
  childCount: number;
  pushChild(c: number): void;
  /** The index among the table's frames of a call frame parsed from its text, or -1 when it is no call frame. */
  frameOfText(text: string): number;
  addScanned(id: number, parent: number, frame: number, hits: number, ticks: PositionTick[] | undefined): void;
}

const bytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));
// Each after its opening quote, closing quote and colon included.
const ID = bytes('id":');
const CALL_FRAME = bytes('callFrame":');
const HIT_COUNT = bytes('hitCount":');
const CHILDREN = bytes('children":');
const PARENT = bytes('parent":');
const POSITION_TICKS = bytes('positionTicks":');
const DEOPT_REASON = bytes('deoptReason":');
const LINE = bytes('{"line":');
const TICKS = bytes(',"ticks":');

const SEEN_ID = 1;
const SEEN_FRAME = 2;
const SEEN_HITS = 4;
const SEEN_KIDS = 8;
const SEEN_PARENT = 16;
const SEEN_TICKS = 32;
const SEEN_DEOPT = 64;

/**
 * Reads nodes of the plain form (no white space; keys `id`, `callFrame`, `hitCount`, `children`, `parent`,
 * `positionTicks`, `deoptReason`, each once, unescaped; integers of up to 15 digits) as push would take them after
 * JSON.parse and repairNode. Anything else ends the run: that node goes the general way (JSON.parse, repairNode).
 */
export class NodeScanner {
  /** Call frames' bytes seen, each with its index among the table's frames. */
  private readonly known = new FrameBytes();
  /** The last frame index read (callFrame). */
  private v = 0;
  /** The last positionTicks read (positionTicks), and the array they are read into. */
  private ticks: PositionTick[] = [];
  private readonly scratch: PositionTick[] = [];

  constructor(private readonly table: ScannedNodes) {}

  /** The nodes from `i` (see Sink.scan): the index past the last one read, or -1 for none. */
  scan(b: Buffer, i: number): number {
    const n = b.length;
    let done = -1;
    const table = this.table;
    this.known.use(b);
    while (i < n && b[i] === 0x7b) {
      const mark = table.childCount;
      const end = this.node(b, i + 1, n);
      if (end < 0) {
        table.childCount = mark;
        return done;
      }
      done = end;
      if (end >= n || b[end] !== 0x2c) return done;
      i = end + 1;
    }
    return done;
  }

  /** One node from just past its `{`: the index past its `}`, or -1 (nothing added, but maybe children pushed). */
  private node(b: Buffer, j: number, n: number): number {
    let seen = 0;
    let id = 0;
    let parent = NaN;
    let hits = 0;
    let frame = -1;
    let ticks: PositionTick[] | undefined;
    for (;;) {
      if (j >= n || b[j] !== 0x22) return -1;
      j++;
      if (j >= n) return -1;
      const c = b[j];
      let key = 0;
      if (c === 0x69 && word(b, j, ID)) {
        key = SEEN_ID;
        j += ID.length;
        j = plainInt(b, j, n);
        if (j < 0) return -1;
        id = plain.value;
      } else if (c === 0x63 && word(b, j, CALL_FRAME)) {
        key = SEEN_FRAME;
        j += CALL_FRAME.length;
        j = this.callFrame(b, j, n);
        if (j < 0) return -1;
        frame = this.v;
      } else if (c === 0x68 && word(b, j, HIT_COUNT)) {
        key = SEEN_HITS;
        j += HIT_COUNT.length;
        // A count below zero is repaired to 0: the general way does that.
        if (j >= n || b[j] === 0x2d) return -1;
        j = plainInt(b, j, n);
        if (j < 0) return -1;
        hits = plain.value;
      } else if (c === 0x63 && word(b, j, CHILDREN)) {
        key = SEEN_KIDS;
        j += CHILDREN.length;
        j = this.children(b, j, n);
        if (j < 0) return -1;
      } else if (c === 0x70 && word(b, j, PARENT)) {
        key = SEEN_PARENT;
        j += PARENT.length;
        j = plainInt(b, j, n);
        if (j < 0) return -1;
        parent = plain.value;
      } else if (c === 0x70 && word(b, j, POSITION_TICKS)) {
        key = SEEN_TICKS;
        j += POSITION_TICKS.length;
        const to = this.positionTicks(b, j, n);
        if (to >= 0) {
          ticks = this.ticks;
          j = to;
        } else {
          // Ticks of another form (a fraction, keys in another order) are parsed, and kept as repairNode keeps them.
          const end = arrayEnd(b, j, n);
          if (end < 0) return -1;
          let all: unknown;
          try {
            all = JSON.parse(b.toString('utf8', j, end));
          } catch {
            return -1;
          }
          const list = all as PositionTick[];
          ticks = list.every(goodTick) ? list : list.filter(goodTick);
          j = end;
        }
      } else if (c === 0x64 && word(b, j, DEOPT_REASON)) {
        key = SEEN_DEOPT;
        j += DEOPT_REASON.length;
        if (j >= n || b[j] !== 0x22) return -1;
        j = stringEnd(b, j + 1, n);
        if (j < 0) return -1;
      } else return -1;
      // A repeated key: JSON.parse keeps the last one, the general way.
      if (seen & key) return -1;
      seen |= key;
      if (j >= n) return -1;
      const d = b[j++];
      if (d === 0x7d) break;
      if (d !== 0x2c) return -1;
    }
    if ((seen & (SEEN_ID | SEEN_FRAME)) !== (SEEN_ID | SEEN_FRAME) || frame < 0) return -1;
    this.table.addScanned(id, parent, frame, hits, ticks);
    return j;
  }

  /**
   * positionTicks of the plain form (`[{"line":` integer `,"ticks":` integer `}` ... `]`) into `ticks`, those that
   * repairNode keeps: the index past the `]`, or -1.
   */
  private positionTicks(b: Buffer, j: number, n: number): number {
    if (j >= n || b[j] !== 0x5b) return -1;
    j++;
    const ticks = this.scratch;
    ticks.length = 0;
    if (j < n && b[j] === 0x5d) {
      this.ticks = [];
      return j + 1;
    }
    for (;;) {
      if (!word(b, j, LINE)) return -1;
      j = plainInt(b, j + LINE.length, n);
      if (j < 0) return -1;
      const line = plain.value;
      if (!word(b, j, TICKS)) return -1;
      j = plainInt(b, j + TICKS.length, n);
      if (j < 0 || b[j] !== 0x7d) return -1;
      const count = plain.value;
      if (line > 0 && count > 0) ticks.push({ line, ticks: count });
      j++;
      if (j >= n) return -1;
      const c = b[j++];
      if (c === 0x5d) break;
      if (c !== 0x2c) return -1;
    }
    // A copy as long as its ticks: an array pushed to from empty has room for 17 (1.3 MB more over 22k nodes).
    this.ticks = ticks.slice();
    return j;
  }

  /** `[` plain integers `]` at `j`, pushed onto the table's children: the index past the `]`, or -1. */
  private children(b: Buffer, j: number, n: number): number {
    if (j >= n || b[j] !== 0x5b) return -1;
    j++;
    if (j < n && b[j] === 0x5d) return j + 1;
    const table = this.table;
    for (;;) {
      j = plainInt(b, j, n);
      if (j < 0) return -1;
      table.pushChild(plain.value);
      const c = b[j++];
      if (c === 0x5d) return j;
      if (c !== 0x2c) return -1;
    }
  }

  /**
   * The call frame object at `j`, its frame index into `v`: found by its bytes among those seen, else parsed (and
   * repaired) once. The index past its `}`, or -1 (not a flat object of strings and numbers, or not valid JSON).
   */
  private callFrame(b: Buffer, j: number, n: number): number {
    if (j >= n || b[j] !== 0x7b) return -1;
    const frame = this.known.read(b, j, n, this.frameOfText);
    if (frame < 0) return -1;
    this.v = frame;
    return this.known.end;
  }

  /** A new call frame's text parsed into the table (made once: a closure per frame read would be garbage). */
  private readonly frameOfText = (text: string): number => this.table.frameOfText(text);
}

/** Whether `b` holds `w` at `j`. */
export function word(b: Buffer, j: number, w: Uint8Array): boolean {
  if (j + w.length > b.length) return false;
  for (let k = 0; k < w.length; k++) if (b[j + k] !== w[k]) return false;
  return true;
}

/** From just past a string's opening quote: the index past its closing quote, or -1 (cut, or an escape or control). */
function stringEnd(b: Buffer, j: number, n: number): number {
  while (j < n) {
    const c = b[j++];
    if (c === 0x22) return j;
    if (c === 0x5c || c < 0x20) return -1;
  }
  return -1;
}

/** The array at `j` (its strings plain, see stringEnd): the index past its `]`, or -1. */
function arrayEnd(b: Buffer, j: number, n: number): number {
  if (j >= n || b[j] !== 0x5b) return -1;
  let depth = 0;
  while (j < n) {
    const c = b[j++];
    if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return c === 0x5d ? j : -1;
    } else if (c === 0x22) {
      j = stringEnd(b, j, n);
      if (j < 0) return -1;
    }
  }
  return -1;
}
