import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { ProfileError } from '../model';

// A .cpuprofile can pass V8's ~512 MB string limit, and one JSON.parse of it holds the whole file as a string plus
// a JS number per sample. This reads it as bytes instead: each node object (small) is JSON.parse'd on its own,
// `samples` and `timeDeltas` go straight into typed arrays, and every other value is skipped unread.

/** Numbers kept as int32 while they fit, as float64 from the first one that does not. */
class Numbers {
  private a: Int32Array | Float64Array = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new (this.a.constructor as Int32ArrayConstructor | Float64ArrayConstructor)(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    if (this.a instanceof Int32Array && (v | 0) !== v) this.a = Float64Array.from(this.a);
    this.a[this.length++] = v;
  }
  done(): Int32Array | Float64Array {
    return this.a.subarray(0, this.length);
  }
}

const BOM = [0xef, 0xbb, 0xbf];
const MAX_SCALAR = 1 << 20;
const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDelim = (c: number): boolean => isWs(c) || c === 0x2c || c === 0x5d || c === 0x7d;

/** One JSON value read across chunks: kept (for JSON.parse) or only stepped over. */
class Capture {
  private parts: Buffer[] = [];
  private len = 0;
  private kind: 'nest' | 'str' | 'scalar' | '' = '';
  private depth = 0;
  private inStr = false;
  private esc = false;
  constructor(
    readonly role: 'key' | 'node' | 'value' | 'skip',
    private keep: boolean,
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
    this.take(b, start, n);
    return -1;
  }

  /** A scalar ends at a delimiter, so the end of the input ends it too. */
  get endsAtEof(): boolean {
    return this.kind === 'scalar';
  }

  private take(b: Buffer, from: number, to: number): number {
    if (this.keep) {
      this.parts.push(Buffer.from(b.subarray(from, to)));
      this.len += to - from;
      // Only nodes must be read whole; an oversized key or `startTime` is not one this reader needs.
      if (this.role !== 'node' && this.len > MAX_SCALAR) {
        this.keep = false;
        this.parts = [];
      }
    }
    return to;
  }

  get text(): string | undefined {
    return this.keep ? Buffer.concat(this.parts, this.len).toString('utf8') : undefined;
  }
}

type Obj = Record<string, unknown>;
type Frame =
  | { k: 'obj'; into: Obj; top: boolean; st: 'key0' | 'key' | 'colon' | 'value' | 'next'; key: string | undefined }
  | { k: 'nodes'; out: unknown[]; st: 'v0' | 'v' | 'next' }
  | { k: 'nums'; out: Numbers; st: 'v0' | 'v' | 'next' };

class CorruptJson extends Error {}

/** A push parser over the bytes of a .cpuprofile (or the inspector's `{ profile }` wrapper around one). */
export class CpuProfileScanner {
  private stack: Frame[] = [];
  private state: 'bom' | 'start' | 'in' | 'end' = 'bom';
  private cap: Capture | undefined;
  private num: string | undefined;
  private base = 0;
  private root: Obj | undefined;
  private bomAt = 0;

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
          this.stack.push({ k: 'obj', into: this.root, top: true, st: 'key0', key: undefined });
          i++;
        } else this.cap = new Capture('skip', false);
        continue;
      }
      const f = this.stack[this.stack.length - 1];
      if (f.k === 'obj') {
        if (f.st === 'key0' || f.st === 'key') {
          if (c === 0x7d && f.st === 'key0') i = this.pop(i);
          else if (c === 0x22) this.cap = new Capture('key', true);
          else this.fail(`Unexpected token '${String.fromCharCode(c)}'`, i);
        } else if (f.st === 'colon') {
          if (c !== 0x3a) this.fail(`Expected ':'`, i);
          f.st = 'value';
          i++;
        } else if (f.st === 'value') {
          if (this.startValue(f, c)) i++;
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
      else if (f.k === 'nodes') this.cap = new Capture('node', true);
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = this.number(f, b, i);
      else {
        // Not a number: it counts as a sample no node has, and as a zero delta, as the JSON path reads it.
        f.out.push(NaN);
        f.st = 'next';
        this.cap = new Capture('skip', false);
      }
    }
    this.base += n;
  }

  /** The common case, a plain integer within the chunk, without making a string of it. */
  private number(f: Frame & { k: 'nums' }, b: Buffer, i: number): number {
    const n = b.length;
    let j = i;
    const neg = b[j] === 0x2d;
    if (neg) j++;
    const first = j;
    let v = 0;
    while (j < n && b[j] >= 0x30 && b[j] <= 0x39) v = v * 10 + (b[j++] - 0x30);
    if (j < n && isDelim(b[j]) && j > first && j - first <= 15 && !(b[first] === 0x30 && j - first > 1)) {
      f.out.push(neg ? -v : v);
      f.st = 'next';
      return j;
    }
    while (j < n && !isDelim(b[j])) j++;
    if (j === n) {
      this.num = b.toString('latin1', i, n);
      return n;
    }
    this.pushNum(b.toString('latin1', i, j), j);
    return j;
  }

  private pushNum(text: string, at: number): void {
    const f = this.stack[this.stack.length - 1] as Frame & { k: 'nums' };
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      this.fail(`Unexpected number '${text.slice(0, 40)}'`, at);
    }
    f.out.push(v as number);
    f.st = 'next';
  }

  /** True when an object or array this reader walks into opened at `c`; otherwise the value is captured. */
  private startValue(f: Frame & { k: 'obj' }, c: number): boolean {
    const key = f.key;
    f.st = 'next';
    if (key === 'nodes' && c === 0x5b) {
      const out: unknown[] = [];
      f.into.nodes = out;
      this.stack.push({ k: 'nodes', out, st: 'v0' });
    } else if ((key === 'samples' || key === 'timeDeltas') && c === 0x5b) {
      const out = new Numbers();
      f.into[key] = out;
      this.stack.push({ k: 'nums', out, st: 'v0' });
    } else if (key === 'profile' && f.top && c === 0x7b) {
      const into: Obj = {};
      f.into.profile = into;
      this.stack.push({ k: 'obj', into, top: false, st: 'key0', key: undefined });
    } else {
      const wanted = key === 'startTime' || key === 'endTime' || key === 'profile';
      // JSON.parse lets the last of a repeated key win; a skipped value still replaces an earlier one.
      if (key !== undefined && key in f.into) f.into[key] = undefined;
      this.cap = new Capture(wanted ? 'value' : 'skip', wanted);
      f.st = 'value';
      return false;
    }
    return true;
  }

  private pop(i: number): number {
    this.stack.pop();
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
    if (f.k === 'obj') {
      if (cap.role === 'key') {
        const k = this.parse(cap.text);
        f.key = typeof k === 'string' ? k : undefined;
        f.st = 'colon';
      } else {
        if (cap.role === 'value' && f.key !== undefined) f.into[f.key] = this.parse(cap.text);
        f.st = 'next';
      }
    } else if (f.k === 'nodes') {
      f.out.push(this.parse(cap.text));
      f.st = 'next';
    }
  }

  /** The parsed shape, with `samples`/`timeDeltas` as typed arrays; throws on input that ended early. */
  end(): unknown {
    if (this.cap?.endsAtEof) this.captured();
    if (this.state !== 'end' || this.num !== undefined || this.cap) throw new CorruptJson('Unexpected end of JSON input');
    const finish = (o: Obj | undefined): Obj | undefined => {
      if (!o) return o;
      for (const k of ['samples', 'timeDeltas']) if (o[k] instanceof Numbers) o[k] = (o[k] as Numbers).done();
      if (o.profile && typeof o.profile === 'object') finish(o.profile as Obj);
      return o;
    };
    return finish(this.root);
  }
}

/** Reads a .cpuprofile without ever holding it as one string; `chunkSize` is for tests of chunk boundaries. */
export async function readCpuProfileStream(
  path: string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number } = {},
): Promise<unknown> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
  const scanner = new CpuProfileScanner();
  let read = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: opts.chunkSize ?? 1 << 20 })) {
      opts.signal?.throwIfAborted();
      scanner.feed(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (size > 0) opts.onProgress?.(Math.min(1, read / size));
    }
    return scanner.end();
  } catch (e) {
    if (e instanceof CorruptJson)
      throw new ProfileError(l10n.t('not valid JSON, the .cpuprofile is truncated or corrupt ({0})', e.message), path);
    if (e instanceof ProfileError || opts.signal?.aborted) throw e;
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
}
