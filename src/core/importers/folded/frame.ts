import { Category, classifyJsFile, Frame, isDefaultWasmName, isWasmUrl, Tier } from '../../model';
import { perfWasmFrame } from '../perf/frames';
import { fileUrlToPathAnyOs } from '../../paths';
import { isSpaceChar } from '../../chars';
import { scriptNameSpace } from '../scriptNameSpace';
import { OWN_FRAMES } from '../ownFrames';

const TIERS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };
/** V8's code-kind prefixes as `--perf-basic-prof` and `--prof` name code objects. */
const V8_PREFIX =
  /^(JS|LazyCompile|Function|Script|Eval|Builtin|BytecodeHandler|Handler|Stub|RegExp|InterpretedFunction|Baseline|Maglev|Turbofan):\s*([~^+*]?)/;
/** No space, colon, bracket or parenthesis: nothing below can apply, and most frames of a big profile look so. */
const PLAIN = /^[\w$.<>-]+$/;
const SPECIAL = new Map<string, Category>([
  ['(program)', 'program'],
  ['(idle)', 'idle'],
  ['(garbage collector)', 'gc'],
  ['[unknown]', 'unaccounted'],
]);

export interface ParsedFoldedFrame {
  frame: Frame;
  /** Plain name with nothing saying what it is; decided once the whole file is seen. */
  plain: boolean;
  perfStyle: boolean;
}

/** One folded frame, e.g. `fib /app/x.js:3:10_[j]`, `fib (/app/x.js:3)`, `do_syscall_64_[k]`, `[libc.so.6]`. */
export function parseFoldedFrame(raw: string): ParsedFoldedFrame | null {
  if (PLAIN.test(raw)) return { frame: { name: raw, file: '', line: 0, column: 0, category: 'app' }, plain: true, perfStyle: false };
  let s = raw.trim();
  let note = '';
  const ann = /_\[([jkiw])\]$/.exec(s);
  if (ann) {
    note = ann[1];
    s = s.slice(0, -4);
  }
  if (!s) return null;
  if (s === '(root)') return null;
  const special = SPECIAL.get(s) ?? OWN_FRAMES.get(s);
  if (special) return { frame: { name: s, file: '', line: 0, column: 0, category: special }, plain: false, perfStyle: s === '[unknown]' };

  let tier: Tier | undefined;
  let v8Kind = '';
  const pre = V8_PREFIX.exec(s);
  if (pre) {
    v8Kind = pre[1];
    tier = TIERS[pre[2]] ?? undefined;
    s = s.slice(pre[0].length);
    // A perf map's WebAssembly code (`JS:wasm-function[2]-2-turbofan`): no tier mark, no script.
    const wasm = v8Kind === 'JS' && !pre[2] ? perfWasmFrame(s) : undefined;
    if (wasm) return { frame: wasm, plain: false, perfStyle: true };
  }

  let name = s;
  let file = '';
  let line = 0;
  let column = 0;
  let lib: string | undefined;
  // `name (path:line[:col])` or `name path:line[:col]`; file names may hold spaces inside parentheses.
  const m = splitLocation(s);
  if (m) {
    const loc = fileUrlToPathAnyOs(m.loc);
    if (m.line !== undefined || /\.(?:[cm]?[jt]sx?|node)$/i.test(loc) || loc.startsWith('node:') || loc.startsWith('internal/')) {
      name = m.name;
      file = loc;
      line = m.line ?? 0;
      column = m.column ?? 0;
    } else if (m.paren) {
      name = m.name;
      lib = loc;
    }
  } else {
    const libOnly = /^\[([^\]]+)\]$/.exec(s);
    if (libOnly) lib = libOnly[1];
  }
  if (!name) name = '(anonymous)';

  const perfStyle = !!note || !!v8Kind || !!lib || !!file;
  let category: Category;
  let pkg: string | undefined;
  if (note === 'k' || lib === 'kernel.kallsyms' || lib === '[kernel.kallsyms]') category = 'kernel';
  else if (/^(Builtin|BytecodeHandler|Handler|Stub|RegExp)$/.test(v8Kind)) category = 'v8';
  else if (file) ({ category, pkg } = classifyJsFile(file));
  else if (lib) category = isWasmUrl(lib) ? 'wasm' : /(^|[\\/])node$/.test(lib) ? 'native' : 'shared-lib';
  else if (isDefaultWasmName(name)) category = 'wasm';
  else category = 'app';
  const plain = category !== 'wasm' && !file && !lib && !note && !v8Kind;
  const frame: Frame = { name, file, line, column, category, ...(pkg ? { pkg } : {}), ...(lib ? { lib } : {}), ...(tier ? { tier } : {}) };
  return { frame, plain, perfStyle };
}

/** Where a location may start: a path, a URL, a Node core module. */
const LOCATION_START = /^(?:[a-z]:[\\/]|[a-z]+:\/\/|[\\/.~]|node:|internal\/)/i;

/**
 * `name (loc)` (no parenthesis inside loc) or `name loc` (no space inside loc), loc ending in an
 * optional `:line[:col]`. Found by scanning from the end: a regular expression with a lazy name
 * before `\s+` retries every space of a long run of them (quadratic).
 */
function splitLocation(s: string): { name: string; loc: string; line?: number; column?: number; paren: boolean } | null {
  const open = s.endsWith(')') ? s.lastIndexOf('(') : -1;
  if (open > 0 && isSpaceChar(s.charCodeAt(open - 1)) && s.indexOf(')', open) === s.length - 1) {
    const inner = s.slice(open + 1, -1);
    if (LOCATION_START.test(inner)) return { name: trimEndSpaces(s, open), paren: true, ...trailingNumbers(inner) };
  }
  let t = s.length;
  while (t > 0 && !isSpaceChar(s.charCodeAt(t - 1))) t--;
  if (t === 0 || t === s.length) return null;
  let last = s.slice(t);
  if (!LOCATION_START.test(last)) {
    // A path with spaces (`fib /home/me/My Projects/app.js:3:7`, as V8 names scripts): only with a line to end it.
    const colon = numberTail(s, s.length);
    const sp = colon < 0 ? -1 : scriptNameSpace(s, colon);
    if (sp < 0 || !LOCATION_START.test(s.slice(sp + 1))) return null;
    t = sp + 1;
    last = s.slice(t);
  }
  return { name: trimEndSpaces(s, t), paren: false, ...trailingNumbers(last) };
}

function trimEndSpaces(s: string, end: number): string {
  while (end > 0 && isSpaceChar(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

/** `loc:line:col` / `loc:line` / `loc`; numbers too big to be a line are damage and read as 0. */
export function trailingNumbers(loc: string): { loc: string; line?: number; column?: number } {
  const last = numberTail(loc, loc.length);
  if (last < 0) return { loc };
  const before = numberTail(loc, last);
  if (before < 0) return { loc: loc.slice(0, last), line: lineNumber(loc.slice(last + 1)) };
  return { loc: loc.slice(0, before), line: lineNumber(loc.slice(before + 1, last)), column: lineNumber(loc.slice(last + 1)) };
}

/** Index of the `:` that starts a `:digits` ending at `end`, or -1. */
function numberTail(s: string, end: number): number {
  let k = end;
  while (k > 0 && s.charCodeAt(k - 1) >= 48 && s.charCodeAt(k - 1) <= 57) k--;
  return k < end && k > 0 && s.charCodeAt(k - 1) === 58 ? k - 1 : -1;
}

const lineNumber = (digits: string): number => (digits.length <= 10 && Number(digits) <= 0x7fffffff ? Number(digits) : 0);
