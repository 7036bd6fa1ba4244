import type { CodeInfo, SourcePositions } from './codeMap';

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
  const code: number[] = [];
  const script: number[] = [];
  const inl: number[] = [];
  const re = /C(\d+)O(-?\d+)(?:I(\d+))?/g;
  for (let m = re.exec(positions); m; m = re.exec(positions)) {
    code.push(+m[1]);
    script.push(+m[2]);
    inl.push(m[3] === undefined ? -1 : +m[3]);
  }
  if (code.length === 0) return null;
  const fnIdx: number[] = [];
  const fnPos: number[] = [];
  const fnParent: number[] = [];
  const ri = /F(\d+)O(-?\d+)(?:I(\d+))?/g;
  for (let m = ri.exec(inlinings); m; m = ri.exec(inlinings)) {
    fnIdx.push(+m[1]);
    fnPos.push(+m[2]);
    fnParent.push(m[3] === undefined ? -1 : +m[3]);
  }
  // Positions come sorted by code offset; a stable sort keeps them right if a V8 ever does not.
  const order = code.map((_, i) => i).sort((a, b) => code[a] - code[b] || a - b);
  return {
    scriptId,
    codeOffsets: Int32Array.from(order, (i) => code[i]),
    scriptOffsets: Int32Array.from(order, (i) => script[i]),
    inlining: Int32Array.from(order, (i) => inl[i]),
    inlFn: Int32Array.from(fnIdx),
    inlPos: Int32Array.from(fnPos),
    inlParent: Int32Array.from(fnParent),
    fns,
  };
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
  const a = p.codeOffsets;
  if (a.length === 0 || codeOffset < a[0]) return null;
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a[mid] <= codeOffset) lo = mid;
    else hi = mid - 1;
  }
  const steps: PositionStep[] = [];
  let id = p.inlining[lo];
  let offset = p.scriptOffsets[lo];
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
  const starts: number[] = [0];
  let shift = 0;
  for (let i = escaped.indexOf('\\'); i >= 0; i = escaped.indexOf('\\', i)) {
    const c = escaped[i + 1];
    const len = c === 'x' ? 4 : c === 'u' ? 6 : 2;
    if (c === 'n') starts.push(i - shift + 1);
    shift += len - 1;
    i += len;
  }
  return Int32Array.from(starts);
}
