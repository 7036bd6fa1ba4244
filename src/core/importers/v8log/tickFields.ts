import { grownLater } from './grownLater';
import { doubled } from '../../doubled';

/**
 * The fields of one `tick` line, read in place from the log's bytes. A tick of a real program (tsc) holds ~65
 * addresses: splitting its line made as many strings, and those were most of what the reader's GC copied. The
 * numbers read here are the ones `parseAddress`, `parseInt(…, 16)` and `+…` read from the same text.
 */
export class TickFields {
  // A tick holds at most 6 + 255 fields (V8 samples 255 frames): growing this mid-log made the optimized code bail out.
  private commas = new Int32Array(512);

  constructor() {
    grownLater(this, 'commas');
  }

  private n = 0;
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  /** Reads where the fields of `buf[start, end)` are; returns their count. */
  read(buf: Buffer, start: number, end: number): number {
    this.buf = buf;
    this.start = start;
    this.end = end;
    let n = 0;
    let cs = this.commas;
    for (let i = start; i < end; i++) {
      if (buf[i] !== 44) continue;
      if (n === cs.length) this.commas = cs = doubled(cs);
      cs[n++] = i;
    }
    this.n = n;
    return n + 1;
  }

  /** Offset in the buffer where field `i` starts (its comma's place for i ≥ 1, plus one). */
  from(i: number): number {
    return i === 0 ? this.start : this.commas[i - 1] + 1;
  }

  to(i: number): number {
    return i < this.n ? this.commas[i] : this.end;
  }

  /** The line's text from field `i` on, its leading comma included (i ≥ 1). */
  textFrom(i: number): string {
    return this.buf.toString('latin1', this.commas[i - 1], this.end);
  }

  text(i: number): string {
    return this.buf.toString('latin1', this.from(i), this.to(i));
  }

  /** First byte of field `i`, or -1 when it is empty. */
  lead(i: number): number {
    const s = this.from(i);
    return s < this.to(i) ? this.buf[s] : -1;
  }

  /** Whether a field after the first `i` ones starts with `+` or `-` (addresses relative to the one before). */
  hasRelative(i: number): boolean {
    for (let k = i; k < this.n; k++) {
      const c = this.buf[this.commas[k] + 1];
      if (c === 43 || c === 45) return true;
    }
    return false;
  }

  /**
   * A hash of the callers' text: field 1 (the pc) when `withPc`, then the line from field 3's comma on. The bytes
   * hashed are those `key` copies and `isKey` compares.
   */
  keyHash(withPc: boolean): number {
    const b = this.buf;
    let h = 0x811c9dc5;
    if (withPc) for (let k = this.from(1), e = this.to(1); k < e; k++) h = Math.imul(h ^ b[k], 0x01000193);
    for (let k = this.commas[2], e = this.end; k < e; k++) h = Math.imul(h ^ b[k], 0x01000193);
    return h;
  }

  /** A copy of the bytes `keyHash` hashed (off the JS heap: a cache of thousands of ~1 KB keys is not the GC's to copy). */
  key(withPc: boolean): Buffer {
    const pc0 = withPc ? this.from(1) : 0;
    const pcLen = withPc ? this.to(1) - pc0 : 0;
    const restLen = this.end - this.commas[2];
    const out = Buffer.allocUnsafe(pcLen + restLen);
    if (pcLen) this.buf.copy(out, 0, pc0, pc0 + pcLen);
    this.buf.copy(out, pcLen, this.commas[2], this.end);
    return out;
  }

  /** Whether `key` holds the bytes `keyHash(withPc)` hashed. */
  isKey(key: Buffer, withPc: boolean): boolean {
    const b = this.buf;
    const pc0 = withPc ? this.from(1) : 0;
    const pcLen = withPc ? this.to(1) - pc0 : 0;
    const r0 = this.commas[2];
    if (key.length !== pcLen + this.end - r0) return false;
    for (let k = 0; k < pcLen; k++) if (key[k] !== b[pc0 + k]) return false;
    for (let k = pcLen, d = r0 - pcLen; k < key.length; k++) if (key[k] !== b[d + k]) return false;
    return true;
  }

  /** `+text`: a plain run of digits read here, anything else by Number. */
  number(i: number): number {
    const s = this.from(i);
    const e = this.to(i);
    if (e > s && e - s <= 15) {
      let v = 0;
      let k = s;
      for (; k < e; k++) {
        const c = this.buf[k] - 48;
        if (c < 0 || c > 9) break;
        v = v * 10 + c;
      }
      if (k === e) return v;
    }
    return +this.buf.toString('latin1', s, e);
  }

  /** `parseAddress(text)`: `0x…` hex up to 2^53, else NaN. */
  address(i: number): number {
    const s = this.from(i);
    const e = this.to(i);
    if (e - s < 3 || this.buf[s] !== 48 || (this.buf[s + 1] | 0x20) !== 120) return NaN;
    const v = this.hex(s, e);
    return v <= Number.MAX_SAFE_INTEGER ? v : NaN;
  }

  /** `parseInt(text, 16)`: an optional sign and `0x`, then hex digits up to the first other character. */
  int16(i: number): number {
    const s = this.from(i);
    const e = this.to(i);
    const c = this.buf[s];
    if (s < e && (c === 43 || c === 45)) {
      const v = this.hex(s + 1, e);
      return c === 45 ? -v : v;
    }
    return this.hex(s, e);
  }

  private hex(s: number, e: number): number {
    const b = this.buf;
    if (e - s >= 2 && b[s] === 48 && (b[s + 1] | 0x20) === 120) s += 2;
    let v = 0;
    let k = s;
    for (; k < e; k++) {
      const c = b[k];
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if ((c | 0x20) >= 97 && (c | 0x20) <= 102) d = (c | 0x20) - 87;
      else break;
      v = v * 16 + d;
    }
    return k === s ? NaN : v;
  }
}
