// A trace's profile nodes come a ProfileChunk at a time, each `{"id":…,"callFrame":{…},"parent":…}`, and a bench trace
// is a third nodes: JSON.parse made an object of each node and of each call frame (most of them copies of a few hundred
// frames), and their garbage and their repair cost ~200 ms whatever the file's size. Nodes of that plain form are read
// here straight from the bytes instead, each call frame looked up by its bytes: only a frame not seen before is parsed.
import { parseFrame, type CallFrame, type CpuNodeTable } from './cpuprofileNodes';
import type { Sink } from './jsonScan';
import { word } from './cpuprofileScan';
import { FrameBytes } from './frameBytes';
import { plain, plainInt } from './numberList';

const ARRAY_END = Buffer.from('}]');
const ID = Buffer.from('"id":');
const CALL_FRAME = Buffer.from('"callFrame":');
const PARENT = Buffer.from('"parent":');

/**
 * An event's nodes, as an array would hold them; one list that each event's nodes take in turn. Those of the plain
 * form are kept as ids, parents and frames (`fast`); any other is parsed whole into `items`, which then come first.
 */
export class EventNodes implements Sink {
  items: unknown[] = [];
  // Kept from event to event (emptying an array gives its room back): `count` of them are this event's.
  private readonly ids: number[] = [];
  /** Doubles from the start (see CpuNodeTable.parents). */
  private readonly parents: number[] = [NaN].slice(1);
  private readonly frames: number[] = [];
  private count = 0;
  /**
   * The trace's call frames, each parsed and repaired once, shared by its profiles (CpuNodeTable.pushPlain), and their
   * bytes: only a frame not seen before is parsed.
   */
  private readonly callFrames: CallFrame[] = [];
  private readonly known = new FrameBytes();

  get length(): number {
    return this.items.length + this.count;
  }
  reset(): this {
    if (this.items.length) this.items = [];
    this.count = 0;
    return this;
  }
  push(x: unknown): void {
    // The plain nodes read so far go first, as objects: the nodes stay in their order.
    for (let k = 0; k < this.count; k++) {
      const parent = this.parents[k];
      const cf = this.callFrames[this.frames[k]];
      this.items.push(parent === parent ? { id: this.ids[k], callFrame: cf, parent } : { id: this.ids[k], callFrame: cf });
    }
    this.count = 0;
    this.items.push(x);
  }

  /** Hands the nodes to `table`, in order. */
  drain(table: CpuNodeTable): void {
    for (const x of this.items) table.push(x);
    const frames = this.callFrames;
    for (let k = 0; k < this.count; k++) table.pushPlain(this.ids[k], this.parents[k], frames[this.frames[k]], this.frames[k]);
  }

  /** The nodes from `i` read as they stand (see the top of the file), else as one JSON.parse (parsed). */
  scan(b: Buffer, i: number): number {
    this.known.use(b);
    const j = this.plain(b, i);
    return j >= 0 ? j : this.parsed(b, i);
  }

  /** The plain nodes from `i`: the index past the last one read, or -1 when the first is not plain. */
  private plain(b: Buffer, i: number): number {
    let read = -1;
    for (;;) {
      const j = this.node(b, i);
      if (j < 0) return read;
      read = j;
      if (b[j] !== 0x2c || b[j + 1] !== 0x7b) return read;
      i = j + 1;
    }
  }

  /** One node of the plain form at `i`: the index past it, or -1 (nothing taken). */
  private node(b: Buffer, i: number): number {
    if (b[i] !== 0x7b) return -1;
    let id = NaN;
    let parent = NaN;
    let frame = -1;
    let seen = 0;
    let j = i + 1;
    const n = b.length;
    for (;;) {
      if (word(b, j, ID) && !(seen & 1)) {
        j = plainInt(b, j + ID.length, n);
        if (j < 0) return -1;
        id = plain.value;
        seen |= 1;
      } else if (word(b, j, CALL_FRAME) && !(seen & 2)) {
        j = this.callFrame(b, j + CALL_FRAME.length, n);
        if (j < 0) return -1;
        frame = this.frame;
        seen |= 2;
      } else if (word(b, j, PARENT) && !(seen & 4)) {
        j = plainInt(b, j + PARENT.length, n);
        if (j < 0) return -1;
        parent = plain.value;
        seen |= 4;
      } else return -1;
      const c = b[j];
      if (c === 0x7d) break;
      if (c !== 0x2c) return -1;
      j++;
    }
    if (seen !== 3 && seen !== 7) return -1;
    const k = this.count++;
    this.ids[k] = id;
    this.parents[k] = parent;
    this.frames[k] = frame;
    return j + 1;
  }

  /** The frame callFrame read last (its index in callFrames). */
  private frame = 0;

  /** The call frame at `j`, into `frame`: found by its bytes, else parsed and remembered. The index past it, or -1. */
  private callFrame(b: Buffer, j: number, n: number): number {
    if (b[j] !== 0x7b) return -1;
    const frame = this.known.read(b, j, n, this.newFrame);
    if (frame < 0) return -1;
    this.frame = frame;
    return this.known.end;
  }

  /** A new call frame's text parsed and repaired into callFrames: its index there, or -1. */
  private readonly newFrame = (text: string): number => {
    const cf = parseFrame(text);
    return cf ? this.callFrames.push(cf) - 1 : -1;
  };

  /**
   * The nodes up to the first `}]` from `i` by one JSON.parse, not delimited byte by byte first, when that parse
   * succeeds: a `}]` that does not end the array leaves a string or a bracket open. The index of the `]`, or -1 (the
   * general way then delimits and parses them, and judges).
   */
  private parsed(b: Buffer, i: number): number {
    if (b[i] !== 0x7b || i === 0) return -1;
    const k = b.indexOf(ARRAY_END, i);
    if (k < 0) return -1;
    // The byte before (the array's `[`, or a comma) is written over with a bracket for the while: no second copy of the text.
    const before = b[i - 1];
    b[i - 1] = 0x5b;
    let items: unknown[];
    try {
      items = JSON.parse(b.toString('utf8', i - 1, k + 2)) as unknown[];
    } catch {
      return -1;
    } finally {
      b[i - 1] = before;
    }
    for (const x of items) this.push(x);
    return k + 1;
  }
}
