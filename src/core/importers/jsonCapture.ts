// The values of a profile read by streaming (jsonScan.ts): one value stepped over or kept for JSON.parse across chunks,
// and the whole elements of an array within one chunk, delimited for one JSON.parse of them all.

/** Input that is not JSON; the reader words it for its format. */
export class CorruptJson extends Error {}

/** A 'small' value past this is dropped. */
export const MAX_SMALL = 1 << 20;
export const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
export const isDelim = (c: number): boolean => isWs(c) || c === 0x2c || c === 0x5d || c === 0x7d;

/** One JSON value read across chunks: kept (for JSON.parse) or only stepped over. */
export class Capture {
  private parts: Buffer[] = [];
  private len = 0;
  private kind: 'nest' | 'str' | 'scalar' | '' = '';
  private depth = 0;
  private inStr = false;
  private esc = false;
  constructor(
    readonly role: 'key' | 'value' | 'skip',
    private keep: boolean,
    private readonly bounded: boolean,
  ) {}

  /** Index just past the value, or -1 when the chunk ended inside it. */
  scan(b: Buffer, i: number): number {
    const start = i;
    const n = b.length;
    if (this.kind === '') {
      const c = b[i];
      if (isDelim(c)) throw new CorruptJson(`Unexpected token '${String.fromCharCode(c)}'`);
      this.kind = c === 0x7b || c === 0x5b ? 'nest' : c === 0x22 ? 'str' : 'scalar';
      this.depth = this.kind === 'nest' ? 1 : 0;
      this.inStr = this.kind === 'str';
      i++;
    }
    while (i < n) {
      const c = b[i];
      if (this.inStr) {
        if (this.esc) this.esc = false;
        else if (c === 0x5c) this.esc = true;
        else if (c === 0x22) {
          this.inStr = false;
          if (this.kind === 'str') return this.take(b, start, i + 1);
        }
      } else if (this.kind === 'scalar') {
        if (isDelim(c)) return this.take(b, start, i);
      } else if (c === 0x22) this.inStr = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if ((c === 0x7d || c === 0x5d) && --this.depth === 0) return this.take(b, start, i + 1);
      i++;
    }
    this.take(b, start, n, false);
    return -1;
  }

  /** A scalar ends at a delimiter, so the end of the input ends it too. */
  get endsAtEof(): boolean {
    return this.kind === 'scalar';
  }

  private take(b: Buffer, from: number, to: number, whole = true): number {
    // Most values lie within one chunk: read in place, no copy of their bytes.
    if (this.keep && whole && this.parts.length === 0 && (!this.bounded || to - from <= MAX_SMALL)) {
      this.str = b.toString('utf8', from, to);
      return to;
    }
    if (this.keep) {
      this.parts.push(Buffer.from(b.subarray(from, to)));
      this.len += to - from;
      if (this.bounded && this.len > MAX_SMALL) {
        this.keep = false;
        this.parts = [];
      }
    }
    return to;
  }

  private str: string | undefined;

  get text(): string | undefined {
    if (!this.keep) return undefined;
    if (this.str !== undefined) return this.str;
    return this.parts.length === 1 ? this.parts[0].toString('utf8') : Buffer.concat(this.parts, this.len).toString('utf8');
  }
}

/**
 * The whole elements of an array that lie in `b` from `i` (the first element's start): the index just past the last
 * of them and their text, or undefined when not even one ends in `b`. With `chooser`, only the elements it wants are
 * in the text (each run of wanted ones cut out as it stands); the others are stepped over.
 */
export function wholeElements(b: Buffer, i: number, chooser?: Marks, at = 0): { end: number; text: string } | undefined {
  const n = b.length;
  let j = i;
  let end = -1;
  const pieces: string[] | undefined = chooser ? [] : undefined;
  let runFrom = -1;
  while (j < n) {
    let k = elementEnd(b, j);
    if (k < 0) break;
    end = k;
    if (chooser) {
      const m = chooser.mark!(b, j, at);
      if (m >= 0 && m < k) {
        if (runFrom < 0) runFrom = j;
      } else if (runFrom >= 0) {
        pieces!.push(b.toString('utf8', runFrom, j).replace(/[\s,]+$/, ''));
        runFrom = -1;
      }
    }
    while (k < n && isWs(b[k])) k++;
    if (k === n || b[k] !== 0x2c) break;
    k++;
    while (k < n && isWs(b[k])) k++;
    j = k;
  }
  if (end < 0) return undefined;
  if (!pieces) return { end, text: b.toString('utf8', i, end) };
  if (runFrom >= 0) pieces.push(b.toString('utf8', runFrom, end));
  return { end, text: pieces.join(',') };
}

/**
 * The index just past the JSON value that starts at `j` (only delimited, not judged), or -1 when it does not end in `b`
 * (before `limit` when given).
 */
export function elementEnd(b: Buffer, j: number, limit = b.length): number {
  const n = limit;
  const c = b[j];
  let k = j + 1;
  if (c === 0x7b || c === 0x5b) {
    let depth = 1;
    while (k < n && depth > 0) {
      const d = b[k++];
      if (d === 0x22) {
        while (k < n && b[k] !== 0x22) k += b[k] === 0x5c ? 2 : 1;
        k++;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) depth--;
    }
    return depth > 0 || k > n ? -1 : k;
  }
  if (c === 0x22) {
    while (k < n && b[k] !== 0x22) k += b[k] === 0x5c ? 2 : 1;
    return k >= n ? -1 : k + 1;
  }
  while (k < n && !isDelim(b[k])) k++;
  return k === n ? -1 : k;
}

/**
 * The JSON value in `b[i, end)` (delimited by elementEnd): a plain integer or a string without escapes read as it is,
 * anything else by JSON.parse, which judges it. `at`: where `b` starts in the file, for the error.
 */
export function valueAt(b: Buffer, i: number, end: number, at: number): unknown {
  let j = i;
  if (b[i] === 0x22) {
    while (++j < end - 1 && b[j] !== 0x5c && b[j] >= 0x20);
    if (j === end - 1 && end - i >= 2) return b.toString('utf8', i + 1, end - 1);
  } else if (end - i <= 15 && (b[i] !== 0x30 || end - i === 1)) {
    let v = 0;
    for (; j < end && b[j] >= 0x30 && b[j] <= 0x39; j++) v = v * 10 + b[j] - 0x30;
    if (j === end) return v;
  }
  try {
    return JSON.parse(b.toString('utf8', i, end));
  } catch (e) {
    throw new CorruptJson(`${(e as Error).message.split('\n')[0]} at byte ${at + i}`);
  }
}

/**
 * The whole elements of a kept array that lie in `b` from `i`, parsed by one JSON.parse and pushed to `out`: one call
 * for thousands of nodes instead of one each. The index after them, or -1 when not even one element ends in `b`. The
 * elements are only delimited (wholeElements); JSON.parse judges them and the commas. `at`: where `b` starts in the file.
 */
export function parseWhole(
  out: { push(x: unknown): unknown; bulk?: boolean },
  chooser: Marks | undefined,
  b: Buffer,
  i: number,
  at: number,
): number {
  const fast = chooser || !out.bulk ? -1 : parseObjectsUpTo(out, b, i);
  if (fast >= 0) return fast;
  const whole = wholeElements(b, i, chooser, at);
  if (!whole) return -1;
  let items: unknown[];
  try {
    items = JSON.parse(`[${whole.text}]`) as unknown[];
  } catch (e) {
    throw new CorruptJson(`${(e as Error).message.split('\n')[0]} at byte ${at + i}`);
  }
  for (const x of items) out.push(x);
  return whole.end;
}

const COMMA_AFTER_OBJECT = Buffer.from('},');

/**
 * parseWhole without delimiting each element byte by byte (a third of its time on a profile's nodes): objects of one
 * kind start with the same key, so the last `},{"<the first element's first key>"` in `b` likely ends an element, and
 * one JSON.parse tells. It succeeds only if it did: a cut inside a string leaves the string open, and one inside an
 * object leaves a brace open. The index past the elements parsed, or -1 (no such cut, or it failed: parseWhole judges).
 * Only for a sink whose array fills chunk after chunk (`bulk`): the search runs from the chunk's end, and a small array
 * among other values (a trace event's nodes) would search, and parse, past its end.
 */
function parseObjectsUpTo(out: { push(x: unknown): unknown }, b: Buffer, i: number): number {
  if (b[i] !== 0x7b || b[i + 1] !== 0x22) return -1;
  const q = b.indexOf(0x22, i + 2);
  if (q < 0 || q - i > 64) return -1;
  const k = b.lastIndexOf(Buffer.concat([COMMA_AFTER_OBJECT, b.subarray(i, q + 1)]));
  if (k <= i) return -1;
  let text: string;
  if (i > 0) {
    // The brackets are written over the bytes either side for the while (a comma or bracket before, the comma after):
    // `[${text}]` would copy the text into a new string again (a second copy of the file's nodes in all).
    const before = b[i - 1];
    b[i - 1] = 0x5b;
    b[k + 1] = 0x5d;
    text = b.toString('utf8', i - 1, k + 2);
    b[i - 1] = before;
    b[k + 1] = 0x2c;
  } else text = `[${b.toString('utf8', i, k + 1)}]`;
  let items: unknown[];
  try {
    items = JSON.parse(text) as unknown[];
  } catch {
    return -1;
  }
  for (const x of items) out.push(x);
  return k + 1;
}

/** Where the next word that makes an element wanted lies (see Sink.mark). */
type Marks = { mark?(b: Buffer, from: number, at: number): number };

/**
 * The element at `i` when it lies whole in `b` and holds no mark: the index past it (stepped over), else -1. It is
 * delimited only up to the next mark: an element that reaches it is read, and read from the start (V8 names its events
 * early, so a profile chunk's samples are scanned once, not twice).
 */
export function unwanted(sink: Marks, b: Buffer, i: number, at: number): number {
  if (!sink.mark) return -1;
  const m = sink.mark(b, i, at);
  return elementEnd(b, i, m < 0 ? b.length : m);
}
