import { grownLater } from './grownLater';
import { doubled } from '../../doubled';
import { scriptNameSpace } from '../scriptNameSpace';

/**
 * V8's log is CSV without quoting: it escapes `,` as `\x2C`, newlines as `\n`, other control and
 * non-ASCII characters as `\xHH` / `\uHHHH`, and `\` as `\\`. So splitting on `,` is always safe
 * and only fields holding a backslash need unescaping.
 */
export function unescapeField(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const bs = s.indexOf('\\', i);
    if (bs < 0 || bs === s.length - 1) {
      out += s.slice(i);
      break;
    }
    out += s.slice(i, bs);
    const c = s[bs + 1];
    if (c === 'n') {
      out += '\n';
      i = bs + 2;
    } else if (c === 'x' && isHex(s, bs + 2, 2)) {
      out += String.fromCharCode(parseInt(s.slice(bs + 2, bs + 4), 16));
      i = bs + 4;
    } else if (c === 'u' && isHex(s, bs + 2, 4)) {
      out += String.fromCharCode(parseInt(s.slice(bs + 2, bs + 6), 16));
      i = bs + 6;
    } else {
      out += c;
      i = bs + 2;
    }
  }
  return out;
}

function isHex(s: string, at: number, n: number): boolean {
  if (at + n > s.length) return false;
  for (let k = at; k < at + n; k++) {
    const ch = s.charCodeAt(k) | 0x20;
    if (!((ch >= 48 && ch <= 57) || (ch >= 97 && ch <= 102))) return false;
  }
  return true;
}

/**
 * A flat copy of a string sliced out of a read chunk. V8 keeps a slice (13+ characters) as a view
 * into its parent, so one short name kept from a chunk would keep the whole megabyte alive.
 */
export function own(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * Addresses are `0x…` hex; user-space ones fit 48 bits, exact as doubles. NaN for anything else,
 * including values past 2^53, which doubles cannot step through.
 */
export function parseAddress(s: string | undefined): number {
  if (s === undefined || s.length < 3 || s.charCodeAt(0) !== 48 || (s.charCodeAt(1) | 0x20) !== 120) return NaN;
  const v = parseInt(s, 16);
  return v <= Number.MAX_SAFE_INTEGER ? v : NaN;
}

/**
 * Splits a JS code name `fn file:line:col` (anonymous: ` file:line:col`) into its parts: the file follows the space
 * before a script the log named (`isScript`), else the one scriptNameSpace finds. Scanned from the end; the regular
 * expression this replaces (a lazy name, then a lazy file) took quadratic time on long names.
 */
export function parseJsName(
  raw: string,
  isScript?: (named: string) => boolean,
): { name: string; file: string; line: number; column: number } {
  const col = digitsBefore(raw, raw.length);
  const line = col > 0 && col < raw.length && raw.charCodeAt(col - 1) === 58 ? digitsBefore(raw, col - 1) : -1;
  if (line > 0 && line < col - 1 && raw.charCodeAt(line - 1) === 58) {
    const sp = (isScript && knownScriptSpace(raw, line - 1, isScript)) ?? scriptNameSpace(raw, line - 1);
    return {
      name: raw.slice(0, Math.max(sp, 0)) || '(anonymous)',
      file: raw.slice(sp + 1, line - 1),
      line: position(raw, line, col - 1),
      column: position(raw, col, raw.length),
    };
  }
  // Names without a position (`fn file`, or a bare name) come from older V8s and native functions.
  const sp = raw.lastIndexOf(' ');
  if (sp > 0) return { name: raw.slice(0, sp), file: raw.slice(sp + 1), line: 0, column: 0 };
  return { name: raw.trim() || '(anonymous)', file: '', line: 0, column: 0 };
}

/**
 * The space before a script the log named (`script-source`), where more than one space could end the name: a script
 * named without a path (`new vm.Script(code, { filename: 'my template.ejs' })`) does not start like one.
 */
function knownScriptSpace(raw: string, colon: number, isScript: (named: string) => boolean): number | undefined {
  const first = raw.indexOf(' ');
  if (first < 0 || first === raw.lastIndexOf(' ', colon - 1)) return undefined;
  for (let i = first; i >= 0 && i < colon; i = raw.indexOf(' ', i + 1)) if (isScript(raw.slice(i + 1, colon))) return i;
  return undefined;
}

/** Start of the run of digits ending at `end`; `end` when there is none. */
function digitsBefore(s: string, end: number): number {
  let k = end;
  while (k > 0 && s.charCodeAt(k - 1) >= 48 && s.charCodeAt(k - 1) <= 57) k--;
  return k;
}

/** A line or column; more digits than any file has lines are damage, read as 0. */
function position(s: string, start: number, end: number): number {
  const v = end - start <= 10 ? Number(s.slice(start, end)) : 0;
  return v <= 0x7fffffff ? v : 0;
}

/**
 * Lines are read as latin1 for speed; raw UTF-8 bytes V8 copied into names are decoded here. Call it
 * before `unescapeField`: an escape such as `\xf6` already stands for the character itself.
 */
export function fixUtf8(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/**
 * The fields of one text record, found without `split`: a `code-creation` line made an array and eight strings, most
 * of them only looked at once. The values read here are those `split(',')`, `parseAddress` and `+` give.
 */
export class LineFields {
  private commas = new Int32Array(16);

  constructor() {
    grownLater(this, 'commas');
  }

  private line = '';
  /** Fields in the line (commas + 1). */
  count = 0;

  read(line: string): number {
    this.line = line;
    let n = 0;
    for (let i = line.indexOf(','); i >= 0; i = line.indexOf(',', i + 1)) {
      if (n === this.commas.length) this.grow();
      this.commas[n++] = i;
    }
    return (this.count = n + 1);
  }

  private grow(): void {
    this.commas = doubled(this.commas);
  }

  /** `split(',')[i]`, or undefined past the last field. */
  text(i: number): string | undefined {
    if (i >= this.count) return undefined;
    return this.line.slice(i === 0 ? 0 : this.commas[i - 1] + 1, i === this.count - 1 ? this.line.length : this.commas[i]);
  }

  /** Fields `i` to `j` with the commas between them: `split(',').slice(i, j + 1).join(',')`. */
  span(i: number, j: number): string {
    if (i >= this.count) return '';
    j = Math.min(j, this.count - 1);
    return this.line.slice(i === 0 ? 0 : this.commas[i - 1] + 1, j === this.count - 1 ? this.line.length : this.commas[j]);
  }

  /** `parseAddress(split(',')[i])`, read in place. */
  address(i: number): number {
    if (i >= this.count) return NaN;
    const s = this.line;
    const from = i === 0 ? 0 : this.commas[i - 1] + 1;
    const to = i === this.count - 1 ? s.length : this.commas[i];
    if (to - from < 3 || s.charCodeAt(from) !== 48 || (s.charCodeAt(from + 1) | 0x20) !== 120) return NaN;
    let v = 0;
    let k = from + 2;
    for (; k < to; k++) {
      const c = s.charCodeAt(k);
      const l = c | 0x20;
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (l >= 97 && l <= 102) d = l - 87;
      else break;
      v = v * 16 + d;
    }
    if (k === from + 2) return NaN;
    return v <= Number.MAX_SAFE_INTEGER ? v : NaN;
  }
}
