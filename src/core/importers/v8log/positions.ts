import type { CodeInfo, SourcePositions } from './codeMap';
import { grownLater } from './grownLater';
import { doubled } from '../../doubled';

/** `script-source` text, kept escaped until a line number is needed from it. */
export class Script {
  private starts?: Int32Array;
  constructor(
    readonly name: string,
    private escaped: string,
  ) {}

  /** 1-based line and column of a UTF-16 offset. */
  position(offset: number): { line: number; column: number } {
    this.starts ??= lineStarts(this.escaped);
    this.escaped = '';
    const a = this.starts;
    let lo = 0;
    let hi = a.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - a[lo] + 1 };
  }
}

/**
 * Parses `C<code offset>O<script offset>[I<inlining id>]…` plus the inlining table
 * `F<fn>O<call site offset>[I<parent>]…` and the inlined functions `S<sfi address>…`.
 */
export function parseSourcePositions(
  scriptId: number,
  positions: string,
  inlinings: string,
  fns: (CodeInfo | undefined)[],
): SourcePositions | null {
  const t = triples(positions, 67 /* C */);
  if (t.n === 0) return null;
  const code = t.a.slice(0, t.n);
  const script = t.b.slice(0, t.n);
  const inl = t.c.slice(0, t.n);
  const f = triples(inlinings, 70 /* F */);
  const inlFn = f.a.slice(0, f.n);
  const inlPos = f.b.slice(0, f.n);
  const inlParent = f.c.slice(0, f.n);
  // Positions come sorted by code offset; a stable sort keeps them right if a V8 ever does not.
  let sorted = true;
  for (let i = 1; i < code.length && sorted; i++) sorted = code[i - 1] <= code[i];
  if (!sorted) {
    const order = Array.from(code, (_, i) => i).sort((x, y) => code[x] - code[y] || x - y);
    const pick = (a: Int32Array): Int32Array => Int32Array.from(order, (i) => a[i]);
    return { scriptId, codeOffsets: pick(code), scriptOffsets: pick(script), inlining: pick(inl), inlFn, inlPos, inlParent, fns };
  }
  return { scriptId, codeOffsets: code, scriptOffsets: script, inlining: inl, inlFn, inlPos, inlParent, fns };
}

/** Scratch columns for `triples`, grown as needed: a big TurboFan function's table holds thousands of entries. */
// 8 192 from the start (96 KiB): webpack's log first grew 1 024 after V8 had optimized the scan, which threw it away.
const COLS = 8192;
const cols = { a: new Int32Array(COLS), b: new Int32Array(COLS), c: new Int32Array(COLS), n: 0 };
grownLater(cols, 'a', 'b', 'c');

function push(a: number, b: number, c: number): void {
  if (cols.n === cols.a.length) growCols();
  cols.a[cols.n] = a;
  cols.b[cols.n] = b;
  cols.c[cols.n++] = c;
}

/** Apart from `push`, so the hot scan that inlines it stays small for the optimizing compiler. */
function growCols(): void {
  cols.a = doubled(cols.a);
  cols.b = doubled(cols.b);
  cols.c = doubled(cols.c);
}

/**
 * Every `<lead>a O b [I c]` in `s` (a, c unsigned, b maybe negative; c is -1 when absent), skipping text that is not
 * one, as `/<lead>(\d+)O(-?\d+)(?:I(\d+))?/g` would: a table of a big TurboFan function holds thousands, and a
 * scan by character codes is several times faster than the regular expression. The columns are scratch: copy them
 * before the next call.
 */
function triples(s: string, lead: number): typeof cols {
  // Every read is within the string: a character code read past its end (NaN) makes the optimized code bail out.
  // No step is only on a rare path (text that is no triple, an inlining id): V8 optimizes this early, and reaching a
  // step it had never run threw the optimized code away (two recompiles on tsc's log).
  cols.n = 0;
  const n = s.length;
  const leadText = String.fromCharCode(lead);
  let i = s.indexOf(leadText);
  while (i >= 0 && i < n) {
    const aEnd = digitsEnd(s, i + 1);
    let ok = aEnd > i + 1 && aEnd < n && s.charCodeAt(aEnd) === 79; /* O */
    let bStart = aEnd + 1;
    if (ok && bStart < n && s.charCodeAt(bStart) === 45 /* - */) bStart++;
    const bEnd = ok ? digitsEnd(s, bStart) : bStart;
    ok = ok && bEnd > bStart;
    let next = i + 1;
    if (ok) {
      const a = num(s, i + 1, aEnd);
      const b = num(s, aEnd + 1, bEnd);
      const marked = bEnd < n && s.charCodeAt(bEnd) === 73; /* I */
      const cStart = bEnd + 1;
      const cEnd = digitsEnd(s, marked ? cStart : n);
      const hasC = cEnd > cStart && marked;
      const c = num(s, cStart, hasC ? cEnd : cStart);
      push(a, b, hasC ? c : -1);
      next = hasC ? cEnd : bEnd;
    }
    i = s.indexOf(leadText, next);
  }
  return cols;
}

function digitsEnd(s: string, i: number): number {
  const n = s.length;
  while (i < n) {
    const ch = s.charCodeAt(i);
    if (!(ch >= 48 && ch <= 57)) return i;
    i++;
  }
  return n;
}

/** The number `+s.slice(start, end)` is (a sign allowed), without the slice for the usual short ones. */
function num(s: string, start: number, end: number): number {
  // Past 15 digits a running product could round differently from the parse of the text.
  if (end - start > 15) return +s.slice(start, end);
  // An empty range (no inlining id) is 0, its text unread.
  const neg = start < end && s.charCodeAt(start) === 45;
  let v = 0;
  for (let k = neg ? start + 1 : start; k < end; k++) v = v * 10 + (s.charCodeAt(k) - 48);
  return neg ? -v : v;
}

/** One source position: `info` is the function the script offset belongs to. */
export interface PositionStep {
  info: CodeInfo | undefined;
  scriptOffset: number;
}

/**
 * The positions executing at `codeOffset`, outermost function first: with inlining, the outer
 * function at its call site, then each inlined callee, the last one at the executing offset.
 */
export function positionsAt(p: SourcePositions, outer: CodeInfo, codeOffset: number): PositionStep[] | null {
  const row = rowAt(p, codeOffset);
  return row < 0 ? null : stepsAt(p, outer, row);
}

/** The row of the position table in force at `codeOffset` (the last at or before it), or -1 when none is. */
export function rowAt(p: SourcePositions, codeOffset: number): number {
  const a = p.codeOffsets;
  if (a.length === 0 || codeOffset < a[0]) return -1;
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a[mid] <= codeOffset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `positionsAt` for the offsets of one row of the table. */
export function stepsAt(p: SourcePositions, outer: CodeInfo, row: number): PositionStep[] {
  const steps: PositionStep[] = [];
  let id = p.inlining[row];
  let offset = p.scriptOffsets[row];
  let guard = 0;
  while (id >= 0 && id < p.inlFn.length && guard++ < 64) {
    steps.push({ info: p.fns[p.inlFn[id]], scriptOffset: offset });
    offset = p.inlPos[id];
    id = p.inlParent[id];
  }
  steps.push({ info: outer, scriptOffset: offset });
  return steps.reverse();
}

/**
 * Offsets (in the unescaped text) where lines start, read straight from V8's escaped text: every
 * escape is one character, and newlines only ever appear as `\n`.
 */
export function lineStarts(escaped: string): Int32Array {
  // Straight into a typed array grown by doubling: a big script (typescript.js: ~200 000 lines) made a number array
  // as long, copied as it grew and once more at the end.
  let starts = new Int32Array(1024);
  let n = 1;
  let shift = 0;
  for (let i = escaped.indexOf('\\'); i >= 0; i = escaped.indexOf('\\', i)) {
    const c = escaped.charCodeAt(i + 1);
    const len = c === 120 /* x */ ? 4 : c === 117 /* u */ ? 6 : 2;
    if (c === 110 /* n */) {
      if (n === starts.length) starts = doubled(starts);
      starts[n++] = i - shift + 1;
    }
    shift += len - 1;
    i += len;
  }
  return starts.slice(0, n);
}
