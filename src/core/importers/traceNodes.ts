// A trace's profile nodes come a ProfileChunk at a time, each `{"id":…,"callFrame":{…},"parent":…}`, and a bench trace
// is a third nodes: JSON.parse made an object of each node and of each call frame (most of them copies of a few hundred
// frames), and their garbage and their repair cost ~200 ms whatever the file's size. Nodes of that plain form are read
// here straight from the bytes instead, each call frame looked up by its bytes: only a frame not seen before is parsed.
import { elementEnd } from './jsonCapture';
import { repairNode, type CallFrame, type CpuNode, type CpuNodeTable } from './cpuprofileNodes';
import type { Sink } from './jsonScan';
import { word } from './cpuprofileScan';

const ARRAY_END = Buffer.from('}]');
const ID = Buffer.from('"id":');
const CALL_FRAME = Buffer.from('"callFrame":');
const PARENT = Buffer.from('"parent":');

/**
 * A hash of a frame's text `b[i, i + len)`: its length, its first and its last 32 bytes (a function's name comes first
 * in V8's frames, its URL's end and its position last). Texts that differ only between are told apart by their bytes.
 */
function hashOf(b: Buffer, i: number, len: number): number {
  let h = Math.imul(len, 0x9e3779b1);
  const head = Math.min(len, 32);
  for (let k = 0; k < head; k++) h = Math.imul(h ^ b[i + k], 0x01000193);
  for (let k = Math.max(head, len - 32); k < len; k++) h = Math.imul(h ^ b[i + k], 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}

/** Whether `text` is `b[i, i + text.length)`, compared from the end (where frames of one file differ). */
function sameBytes(text: Buffer, b: Buffer, i: number): boolean {
  for (let k = text.length - 1; k >= 0; k--) if (text[k] !== b[i + k]) return false;
  return true;
}

/**
 * Call frames by their bytes, each parsed and repaired once; shared by the trace's profiles. Found by a hash of their
 * bytes, not by a string of them: a string made of each node's frame, and its hash, were most of reading the nodes.
 */
export class FrameBytes {
  readonly frames: CallFrame[] = [];
  /** The text and hash of each frame found by its bytes (an empty text: one that is not). */
  private readonly texts: Buffer[] = [];
  private readonly hashes: number[] = [];
  /** Frame number + 1 by hash, open addressing, at most half full. */
  private slots = new Int32Array(1024);
  private stored = 0;

  /**
   * The frame whose text starts at `i` (a `{`): its number in `frames` and the index past it, or -1 (it goes on past
   * `b`, or is no valid JSON object: the general path judges it).
   */
  read(b: Buffer, i: number): number {
    // Up to the first `}`: bytes equal to a frame's text seen before are that frame (they end where it ended, a string
    // of it left no more open than it did). A frame with a `}` in a string is not found so, and parsed each time.
    const close = b.indexOf(0x7d, i);
    if (close < 0) return -1;
    const len = close + 1 - i;
    const h = hashOf(b, i, len);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const k = slots[s] - 1;
      if (k < 0) break;
      const text = this.texts[k];
      if (this.hashes[k] === h && text.length === len && sameBytes(text, b, i)) {
        this.end = close + 1;
        return k;
      }
    }
    return this.parse(b, i, close, h);
  }

  /** `read` for a frame not seen before (a function apart: the hot path that calls it stays small to optimize). */
  private parse(b: Buffer, i: number, close: number, h: number): number {
    const end = elementEnd(b, i);
    if (end < 0) return -1;
    let cf: unknown;
    try {
      cf = JSON.parse(b.toString('utf8', i, end));
    } catch {
      return -1;
    }
    const node = { id: 0, callFrame: cf } as CpuNode;
    if (!repairNode(node)) return -1;
    const k = this.frames.push(node.callFrame) - 1;
    const found = end === close + 1;
    this.texts.push(found ? Buffer.from(b.subarray(i, end)) : EMPTY);
    this.hashes.push(h);
    if (found) this.slot(k, h);
    this.end = end;
    return k;
  }

  private slot(k: number, h: number): void {
    if (2 * ++this.stored > this.slots.length) {
      const old = this.slots;
      this.slots = new Int32Array(2 * old.length);
      for (let s = 0; s < old.length; s++) if (old[s]) this.place(old[s] - 1, this.hashes[old[s] - 1]);
    }
    this.place(k, h);
  }

  private place(k: number, h: number): void {
    const mask = this.slots.length - 1;
    let s = h & mask;
    while (this.slots[s]) s = (s + 1) & mask;
    this.slots[s] = k + 1;
  }

  /** The index past the frame `read` last found. */
  end = 0;
}

const EMPTY = Buffer.alloc(0);

/** A plain JSON integer at `i` (no fraction, exponent or leading zero; at most 15 digits), else NaN; `numEnd` after it. */
let numEnd = 0;
function integerAt(b: Buffer, i: number): number {
  const n = b.length;
  let j = i;
  const neg = b[j] === 0x2d;
  if (neg) j++;
  const first = j;
  let v = 0;
  while (j < n && b[j] >= 0x30 && b[j] <= 0x39) v = v * 10 + (b[j++] - 0x30);
  if (j === first || j - first > 15 || (b[first] === 0x30 && j - first > 1) || j === n) return NaN;
  const c = b[j];
  if (c === 0x2e || c === 0x65 || c === 0x45) return NaN;
  numEnd = j;
  return neg ? -v : v;
}

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

  constructor(private readonly known: FrameBytes) {}

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
      const cf = this.known.frames[this.frames[k]];
      this.items.push(parent === parent ? { id: this.ids[k], callFrame: cf, parent } : { id: this.ids[k], callFrame: cf });
    }
    this.count = 0;
    this.items.push(x);
  }

  /** Hands the nodes to `table`, in order. */
  drain(table: CpuNodeTable): void {
    for (const x of this.items) table.push(x);
    const frames = this.known.frames;
    for (let k = 0; k < this.count; k++) table.pushPlain(this.ids[k], this.parents[k], frames[this.frames[k]], this.frames[k]);
  }

  /** The nodes from `i` read as they stand (see the top of the file), else as one JSON.parse (parsed). */
  scan(b: Buffer, i: number): number {
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
    for (;;) {
      if (word(b, j, ID) && !(seen & 1)) {
        id = integerAt(b, j + ID.length);
        if (id !== id) return -1;
        seen |= 1;
        j = numEnd;
      } else if (word(b, j, CALL_FRAME) && !(seen & 2)) {
        frame = b[j + CALL_FRAME.length] === 0x7b ? this.known.read(b, j + CALL_FRAME.length) : -1;
        if (frame < 0) return -1;
        seen |= 2;
        j = this.known.end;
      } else if (word(b, j, PARENT) && !(seen & 4)) {
        parent = integerAt(b, j + PARENT.length);
        if (parent !== parent) return -1;
        seen |= 4;
        j = numEnd;
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
