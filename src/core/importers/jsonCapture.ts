// One JSON value of a profile read by streaming (jsonScan.ts), stepped over or kept for JSON.parse, across chunks.

/** Input that is not JSON; the reader words it for its format. */
export class CorruptJson extends Error {}

const MAX_SMALL = 1 << 20;
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
