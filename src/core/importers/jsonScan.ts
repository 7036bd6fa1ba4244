// A profile's JSON can pass V8's ~512 MB string limit, and one JSON.parse of it holds the whole file as a string
// plus a JS value per sample. This reads it as bytes instead, guided by a schema of the few keys a reader needs:
// objects it names are walked, small values (a node, a call frame) are JSON.parse'd apart, number arrays go
// straight into typed arrays, and every other value is stepped over unread.

import { Capture, CorruptJson, elementEnd, isDelim, isWs, MAX_SMALL, parseWhole, unwanted, valueAt } from './jsonCapture';
import { integerRun, NumberList, plain, plainInt, type LentArrays } from './numberList';

/** What a key's value becomes; a value of another shape than its rule expects is skipped, as an unknown key is. */
export type Rule =
  /** JSON.parse'd whole (meant for values that are small one by one: a node, a call frame). */
  | 'keep'
  /** Kept as 'keep', but dropped past 1 MiB: a scalar the reader needs, which no valid file makes big. */
  | 'small'
  /** An array of numbers, read into an Int32Array (a Float64Array from the first value that is no int32). */
  | 'nums'
  /**
   * An array of numbers read as its running sums into a Float64Array stored under `sums` instead (time deltas as times);
   * `packed`: as PackedSums (numberList.ts) while the sums are whole numbers.
   */
  | { sums: string; packed?: boolean }
  /**
   * An array of numbers read into the list `list()` gives (emptied by it), stored as the list's typed array: a sink's
   * elements each hold a few short arrays (a trace event's samples), which its lists take in turn, none made per element.
   */
  | { list: () => NumberList }
  /** An object walked key by key. */
  | { object: Schema }
  /**
   * An array whose elements each follow the rule; with `sink`, its elements (kept ones, 'keep') go one by one to a
   * fresh sink instead of an array, which keeps only what it needs of each (a trace's profile events among thousands).
   * An element walked by an `object` rule goes to the sink once whole; the sink's `mark` may step over it unwalked.
   */
  | { each: Rule; sink?: () => Sink };
export type Schema = { [key: string]: Rule };

/** Takes an array's elements as they are parsed, in order; stored in place of the array. */
export interface Sink {
  push(value: unknown): void;
  readonly length: number;
  /**
   * Where in `b`, at `from` or after, the next word lies that makes an element worth reading (-1: nowhere in `b`): an
   * element without one is stepped over unread (a trace's thousands of events that hold no profile). Asked, in order,
   * of the elements that start in a chunk (`at`: where `b` starts in the file); one the chunk cuts is always read.
   */
  mark?(b: Buffer, from: number, at: number): number;
  /** The array is big, its elements objects of one kind (a profile's nodes): parsed a chunk's worth at a time unscanned (parseWhole). */
  readonly bulk?: boolean;
  /**
   * Reads the elements from `i` straight from the bytes, as many as it can (those of the plain form it knows, each
   * whole in `b`), pushing nothing for them: the index just past the last one it read, or -1 when it read none (the
   * element at `i` then goes the general way). A speedscope file's stacks are most of it, and JSON.parse made an array of each.
   */
  scan?(b: Buffer, i: number): number;
}

export { CorruptJson } from './jsonCapture';
export { MAX_DELTA } from './numberList';

const BOM = [0xef, 0xbb, 0xbf];

type Obj = Record<string, unknown>;
type Frame =
  | {
      k: 'obj';
      into: Obj;
      schema: Schema;
      names: KeyName[];
      st: 'key0' | 'key' | 'colon' | 'value' | 'next';
      key: string | undefined;
      /** The key's rule and where its sums go, found with its name (keysOf). */
      at: KeyName | undefined;
      sink?: Sink;
    }
  | { k: 'arr'; out: unknown[] | Sink; sink: boolean; rule: Rule; st: 'v0' | 'v' | 'next'; walk?: Schema }
  | { k: 'nums'; out: NumberList; into: Obj; key: string; st: 'v0' | 'v' | 'next' };
type Nums = Frame & { k: 'nums' };
// Every frame of a kind is made with the same fields in the same order (`sink`, `walk` undefined when not): five
// shapes of frame made every read of `f.k` and `f.st` in feed's loop a megamorphic one.

/** The names an object walked by `schema` can hold values under (its rules' keys, and where sums go), with their bytes. */
interface KeyName {
  name: string;
  bytes: Buffer;
  /** The schema's rule for the name, if any; its `sums`, if it has them. */
  rule: Rule | undefined;
  sums: string | undefined;
}

/** A name's KeyName in `schema` (bytes left empty): a key read another way than by its bytes. */
function keyName(schema: Schema, name: string): KeyName {
  const rule = Object.hasOwn(schema, name) ? schema[name] : undefined;
  return { name, bytes: EMPTY, rule, sums: typeof rule === 'object' && 'sums' in rule ? rule.sums : undefined };
}
const EMPTY = Buffer.alloc(0);
const keyNames = new WeakMap<Schema, KeyName[]>();

function keysOf(schema: Schema): KeyName[] {
  let names = keyNames.get(schema);
  if (!names) {
    const all = new Set<string>();
    for (const [key, rule] of Object.entries(schema)) {
      all.add(key);
      if (typeof rule === 'object' && 'sums' in rule) all.add(rule.sums);
    }
    names = [...all].map((name) => ({ ...keyName(schema, name), bytes: Buffer.from(name, 'utf8') }));
    keyNames.set(schema, names);
  }
  return names;
}

/** The name among `names` whose bytes are `b[from..to)`, or undefined. */
function namedKey(names: KeyName[], b: Buffer, from: number, to: number): KeyName | undefined {
  const len = to - from;
  for (let k = 0; k < names.length; k++) {
    const x = names[k].bytes;
    if (x.length !== len) continue;
    let j = 0;
    while (j < len && x[j] === b[from + j]) j++;
    if (j === len) return names[k];
  }
  return undefined;
}

/** A push parser over the bytes of one JSON document, read as `schema` says (the top level must be an object). */
export class JsonScanner {
  private stack: Frame[] = [];
  private state: 'bom' | 'start' | 'in' | 'end' = 'bom';
  private cap: Capture | undefined;
  private num: string | undefined;
  private base = 0;
  private root: Obj | undefined;
  private bomAt = 0;

  /**
   * `size`, the document's length in bytes when known, bounds the number arrays (see NumberList). A top-level array
   * is read as the value of `arrayKey` when given (a trace is either `[events]` or `{"traceEvents": [events]}`).
   */
  constructor(
    private readonly schema: Schema,
    private readonly size = 0,
    private readonly arrayKey?: string,
    /** Memory lent for the big number lists (not a sink's lists). */
    private readonly lent?: LentArrays,
  ) {}

  private fail(why: string, at: number): never {
    throw new CorruptJson(`${why} at byte ${this.base + at}`);
  }

  feed(b: Buffer): void {
    let i = 0;
    const n = b.length;
    // The byte order mark may itself be cut by a chunk boundary.
    while (this.state === 'bom' && i < n) {
      if (b[i] !== BOM[this.bomAt]) {
        if (this.bomAt > 0) this.fail('Unexpected token', i);
        this.state = 'start';
      } else {
        i++;
        if (++this.bomAt === 3) this.state = 'start';
      }
    }
    while (i < n) {
      if (this.cap) {
        const j = this.cap.scan(b, i);
        if (j < 0) break;
        i = j;
        this.captured();
        continue;
      }
      if (this.num !== undefined) {
        let j = i;
        while (j < n && !isDelim(b[j])) j++;
        this.num += b.toString('latin1', i, j);
        if (j === n) break;
        i = j;
        this.pushNum(this.num, i);
        this.num = undefined;
        continue;
      }
      const f = this.stack[this.stack.length - 1];
      if (f?.k === 'nums') {
        i = this.numberRun(f, b, i);
        if (i === n) break;
      }
      const c = b[i];
      if (isWs(c)) {
        i++;
        continue;
      }
      if (this.state === 'end') this.fail('Unexpected non-whitespace character after JSON', i);
      if (this.state === 'start') {
        this.state = 'in';
        if (c === 0x7b) {
          this.root = {};
          this.stack.push({
            k: 'obj',
            into: this.root,
            schema: this.schema,
            names: keysOf(this.schema),
            st: 'key0',
            key: undefined,
            at: undefined,
            sink: undefined,
          });
          i++;
        } else if (c === 0x5b && this.arrayKey !== undefined && Object.hasOwn(this.schema, this.arrayKey)) {
          this.root = {};
          this.open(this.schema[this.arrayKey], c, this.root, this.arrayKey, false);
          i++;
          if (this.stack.length === 0) this.fail('Unexpected token', i - 1);
        } else this.cap = new Capture('skip', false, false);
        continue;
      }
      if (f.k === 'obj') {
        if (f.st === 'key0' || f.st === 'key') {
          if (c === 0x7d && f.st === 'key0') i = this.pop(i);
          else if (c === 0x22) i = this.key(f, b, i);
          else this.fail(`Unexpected token '${String.fromCharCode(c)}'`, i);
        } else if (f.st === 'colon') {
          if (c !== 0x3a) this.fail(`Expected ':'`, i);
          f.st = 'value';
          i++;
        } else if (f.st === 'value') {
          f.st = 'next';
          const key = f.key;
          const at = f.at;
          const rule = at?.rule;
          // JSON.parse lets the last of a repeated key win; a skipped value still replaces an earlier one.
          if (key !== undefined && Object.hasOwn(f.into, key)) f.into[key] = undefined;
          const sums = at?.sums;
          if (sums !== undefined && Object.hasOwn(f.into, sums)) f.into[sums] = undefined;
          const j = this.inline(rule, b, i, f.into, key);
          if (j >= 0) {
            i = j;
            // As the `next` state takes a comma, without a turn of the loop.
            if (j < n && b[j] === 0x2c) {
              f.st = 'key';
              i++;
            }
          } else if (this.open(rule, c, f.into, key ?? '', false)) i++;
          else f.st = 'value';
        } else {
          if (c === 0x2c) f.st = 'key';
          else if (c === 0x7d) i = this.pop(i) - 1;
          else this.fail(`Expected ',' or '}'`, i);
          i++;
        }
      } else if (f.st === 'next') {
        if (c === 0x2c) f.st = 'v';
        else if (c === 0x5d) i = this.pop(i) - 1;
        else this.fail(`Expected ',' or ']'`, i);
        i++;
      } else if (c === 0x5d && f.st === 'v0') i = this.pop(i);
      else if (f.k === 'arr') {
        const sink = f.sink ? (f.out as Sink) : undefined;
        const read = sink?.scan ? sink.scan(b, i) : -1;
        if (read >= 0) {
          f.st = 'next';
          i = read;
          continue;
        }
        const j =
          f.rule === 'keep'
            ? parseWhole(f.out, sink?.mark ? sink : undefined, b, i, this.base)
            : f.walk
              ? unwanted(sink!, b, i, this.base)
              : -1;
        if (j >= 0) {
          f.st = 'next';
          i = j;
          continue;
        }
        f.st = 'next';
        if (f.walk && c === 0x7b) {
          this.stack.push({
            k: 'obj',
            into: {},
            schema: f.walk,
            names: keysOf(f.walk),
            st: 'key0',
            key: undefined,
            at: undefined,
            sink: f.out as Sink,
          });
          i++;
          continue;
        }
        // The element is stored at its index: an array is the `into` of its elements (a sink is given it instead).
        if (this.open(f.rule, c, f.out as unknown as Obj, String(f.out.length), true)) i++;
        else {
          f.st = 'v';
          if (f.sink) this.pending = { into: {}, key: '', sink: f.out as Sink };
        }
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = this.number(f, b, i);
      else {
        // Not a number: it counts as NaN (a sample no node has, a zero delta), as the readers of a parsed array take it.
        f.out.push(NaN);
        f.st = 'next';
        this.cap = new Capture('skip', false, false);
      }
    }
    this.base += n;
  }

  /**
   * Starts the value at `c` under `rule`, stored as `into[key]`: true when an array or object it walks into opened
   * (the caller steps past `c`); false when the value is captured instead (kept or skipped).
   */
  private open(rule: Rule | undefined, c: number, into: Obj, key: string, inArray: boolean): boolean {
    const sums = typeof rule === 'object' && 'sums' in rule ? rule.sums : undefined;
    const list = typeof rule === 'object' && 'list' in rule ? rule.list : undefined;
    if ((rule === 'nums' || sums !== undefined || list) && c === 0x5b) {
      const out = list
        ? list()
        : new NumberList(
            this.size > 0 ? Math.ceil((this.size - this.base) / 2) + 1 : 0,
            sums !== undefined,
            this.lent,
            typeof rule === 'object' && 'packed' in rule && rule.packed === true,
          );
      into[sums ?? key] = out;
      this.stack.push({ k: 'nums', out, into, key: sums ?? key, st: 'v0' });
      return true;
    }
    if (typeof rule === 'object' && 'each' in rule && c === 0x5b) {
      const out = rule.sink ? rule.sink() : [];
      into[key] = out;
      const walk = rule.sink && typeof rule.each === 'object' && 'object' in rule.each ? rule.each.object : undefined;
      this.stack.push({ k: 'arr', out, sink: !!rule.sink, rule: rule.each, st: 'v0', walk });
      return true;
    }
    if (typeof rule === 'object' && 'object' in rule && c === 0x7b) {
      const obj: Obj = {};
      into[key] = obj;
      this.stack.push({
        k: 'obj',
        into: obj,
        schema: rule.object,
        names: keysOf(rule.object),
        st: 'key0',
        key: undefined,
        at: undefined,
        sink: undefined,
      });
      return true;
    }
    // An array element is always kept (as JSON.parse would have it): the indices after it must not shift.
    const kept = rule === 'keep' || rule === 'small' || inArray;
    this.cap = new Capture(kept ? 'value' : 'skip', kept, rule !== 'keep');
    this.pending = { into, key };
    return false;
  }

  private pending: { into: Obj; key: string; sink?: Sink } | undefined;

  /**
   * A key without escapes within the chunk is read in place (most are); any other through a capture. One read in place
   * is matched by its bytes against the names the object can hold (keysOf): no string is made of it, and one that
   * matches none becomes undefined, as a key no rule names and no value is stored under is taken.
   */
  private key(f: Frame & { k: 'obj' }, b: Buffer, i: number): number {
    const stop = Math.min(b.length, i + 256);
    for (let j = i + 1; j < stop; j++) {
      const c = b[j];
      if (c === 0x22) {
        const at = namedKey(f.names, b, i + 1, j);
        f.key = at?.name;
        f.at = at;
        const after = j + 1;
        // The colon most often follows at once: taken here, not by a turn of feed's loop of its own.
        const colon = after < b.length && b[after] === 0x3a;
        f.st = colon ? 'value' : 'colon';
        return colon ? after + 1 : after;
      }
      if (c === 0x5c || c < 0x20) break;
    }
    this.cap = new Capture('key', true, true);
    return i;
  }

  /**
   * A value under a key that ends within the chunk, read here (a kept one parsed, any other stepped over), not through
   * a capture: the index past it, or -1 for the general path (a container a rule may walk, a value that goes on into the
   * next chunk). A trace's events hold a dozen such values each.
   */
  private inline(rule: Rule | undefined, b: Buffer, i: number, into: Obj, key: string | undefined): number {
    const c = b[i];
    const keep = rule === 'keep' || rule === 'small';
    if (((c === 0x7b || c === 0x5b) && rule !== undefined && !keep) || isDelim(c)) return -1;
    const end = elementEnd(b, i);
    if (end < 0) return -1;
    if (keep && key !== undefined && (rule === 'keep' || end - i <= MAX_SMALL)) into[key] = valueAt(b, i, end, this.base);
    return end;
  }

  /** Plain integers, the bulk of a profile, read in one tight loop (integerRun); anything else is left to the general path. */
  private numberRun(f: Nums, b: Buffer, i: number): number {
    const len = f.out.length;
    const j = integerRun(f.out, b, i, f.st === 'next');
    if (j !== i || f.out.length !== len) f.st = f.out.comma ? 'next' : 'v';
    return j;
  }

  /** The common case, a plain integer within the chunk, without making a string of it. */
  private number(f: Nums, b: Buffer, i: number): number {
    const n = b.length;
    let j = plainInt(b, i, n);
    if (j >= 0) {
      f.out.push(plain.value);
      f.st = 'next';
      return j;
    }
    j = i;
    while (j < n && !isDelim(b[j])) j++;
    if (j === n) {
      this.num = b.toString('latin1', i, n);
      return n;
    }
    this.pushNum(b.toString('latin1', i, j), j);
    return j;
  }

  private pushNum(text: string, at: number): void {
    const f = this.stack[this.stack.length - 1] as Nums;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      this.fail(`Unexpected number '${text.slice(0, 40)}'`, at);
    }
    f.out.push(v as number);
    f.st = 'next';
  }

  private pop(i: number): number {
    const f = this.stack.pop();
    if (f?.k === 'nums') f.into[f.key] = f.out.stored();
    else if (f?.k === 'obj' && f.sink) f.sink.push(f.into);
    if (this.stack.length === 0) this.state = 'end';
    return i + 1;
  }

  private parse(text: string | undefined): unknown {
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      this.fail((e as Error).message.split('\n')[0], 0);
    }
  }

  private captured(): void {
    const cap = this.cap!;
    this.cap = undefined;
    const f = this.stack[this.stack.length - 1];
    if (!f) {
      this.state = 'end';
      return;
    }
    if (cap.role === 'key' && f.k === 'obj') {
      const k = this.parse(cap.text);
      f.key = typeof k === 'string' ? k : undefined;
      f.at = typeof k === 'string' ? keyName(f.schema, k) : undefined;
      f.st = 'colon';
      return;
    }
    const to = this.pending;
    this.pending = undefined;
    if (to?.sink) to.sink.push(this.parse(cap.text));
    else if (to && cap.role === 'value') to.into[to.key] = this.parse(cap.text);
    f.st = 'next';
  }

  /** The values the schema asked for, number arrays as typed arrays; throws on input that ended early. */
  end(): Obj {
    if (this.cap?.endsAtEof) this.captured();
    if (this.state !== 'end' || this.num !== undefined || this.cap) throw new CorruptJson('Unexpected end of JSON input');
    return this.root!;
  }
}
