import { classifyJsFile, evalFrame, wasmFrame, type Frame, type Tier } from '../../model';
import { fileUrlToPathAnyOs } from '../../paths';
import { AMBIGUOUS_JIT, nameFromLine } from './jitNamer';
import { scriptNameSpace } from '../scriptNameSpace';

/** V8's code-kind marker in perf map names (`JS:*fib`): see V8's `ComputeMarker`. */
const TIER_MARKS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };

const WASM_TIERS = new Set(['liftoff', 'turbofan', 'none', 'debug']);

/**
 * V8's perf map name of WebAssembly code, `<name>-<index>-<compiler>` (`wasm-function[2]-2-turbofan`), as the frame the
 * other modes give it; undefined for any other name. Read from the end: no pattern retries a long name.
 */
export function perfWasmFrame(text: string): Frame | undefined {
  const t = text.lastIndexOf('-');
  if (t <= 0 || !WASM_TIERS.has(text.slice(t + 1))) return undefined;
  const i = text.lastIndexOf('-', t - 1);
  if (i <= 0 || i + 1 === t) return undefined;
  for (let k = i + 1; k < t; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return undefined;
  }
  return wasmFrame(text.slice(0, i), undefined, text.slice(t + 1) === 'turbofan' ? 'turbofan' : undefined);
}
/** Perf map prefixes V8 writes for JavaScript code, old (`LazyCompile:`) and new (`JS:`). */
const JS_PREFIX = /^(?:JS|LazyCompile|Function|Script|Eval):/;

/** A script location closes the name: `file:line:col` (older V8: `file:line`). */
const LOCATION = /^(.*):(\d+):(\d+)$|^(.*):(\d+)$/;

/** Index of the `:` before the digits that end `s`, or -1. */
function finalNumberColon(s: string): number {
  let k = s.length;
  while (k > 0 && s.charCodeAt(k - 1) >= 48 && s.charCodeAt(k - 1) <= 57) k--;
  return k < s.length && k > 0 && s.charCodeAt(k - 1) === 58 ? k - 1 : -1;
}

/** GC entry points inside the node binary; the rest of `v8::internal` stays `native`. */
const GC_SYMBOL =
  /^(?:v8::internal::)?(?:Heap::|Scavenger|ScavengerCollector|MarkCompactCollector|MinorMarkCompactCollector|MinorMarkSweepCollector|ConcurrentMarking|IncrementalMarking|MarkingVisitor|MainMarkingVisitor|Sweeper|GCTracer|MarkingBarrier|ArrayBufferSweeper|Evacuator|FullEvacuator|RecordMigratedSlotVisitor|PointersUpdatingJob|MemoryAllocator::Unmapper)/;

const PERF_MAP = /(?:^|\/)perf-\d+\.map$/;
const NODE_BINARY = /(?:^|\/)(?:node|nodejs|node\d+|libnode\.so(?:\.\d+)*)$/;

/**
 * Turns one `perf script` frame (`sym[+0xoff] (dso)`, address already cut off) into a model frame.
 * Native frames keep their library so "which .so" survives into the views.
 */
export function classifyPerfFrame(text: string): Frame {
  let sym = text;
  let dso = '';
  if (text.endsWith(')')) {
    const open = text.lastIndexOf(' (');
    if (open >= 0) {
      sym = text.slice(0, open);
      dso = text.slice(open + 2, -1);
    } else if (text.startsWith('(')) {
      sym = '';
      dso = text.slice(1, -1);
    }
  }
  // A symbol's offset goes (`memcpy+0x1f`); a stripped library's `library+0xoffset` (see nativeSymbols) stays whole.
  if (!sym.startsWith(dso.slice(dso.lastIndexOf('/') + 1) + '+0x')) sym = sym.replace(/\+0x[0-9a-f]+$/i, '');
  const unknownSym = sym === '' || sym === '[unknown]';

  if (dso === '[unknown]' || dso === '' || dso === '//anon' || dso === '[anon]') {
    return unknownSym ? unknown() : { name: sym, file: '', line: 0, column: 0, category: 'unaccounted' };
  }
  if (PERF_MAP.test(dso)) {
    if (sym === AMBIGUOUS_JIT) return { name: AMBIGUOUS_JIT, file: '', line: 0, column: 0, category: 'unaccounted' };
    return unknownSym ? unknown() : perfMapFrame(nameFromLine(sym));
  }
  if (dso.startsWith('[kernel') || (dso.startsWith('[') && dso !== '[vdso]' && dso !== '[vsyscall]')) {
    return native(unknownSym ? '[unknown]' : sym, 'kernel', dso);
  }
  const name = unknownSym ? '[unknown]' : sym;
  if (NODE_BINARY.test(dso)) {
    if (name.startsWith('Builtins_')) return { ...native(name, 'v8', dso), tier: 'builtin' };
    if (GC_SYMBOL.test(name)) return native(name, 'gc', dso);
    return native(name, 'native', dso);
  }
  return native(name, 'shared-lib', dso);
}

function unknown(): Frame {
  return { name: '[unknown]', file: '', line: 0, column: 0, category: 'unaccounted' };
}

function native(name: string, category: Frame['category'], lib: string): Frame {
  return { name, file: '', line: 0, column: 0, category, lib, tier: 'native' };
}

/** Entries of `/tmp/perf-<pid>.map` as written by `--perf-basic-prof`. */
function perfMapFrame(sym: string): Frame {
  const m = JS_PREFIX.exec(sym);
  if (!m) {
    // `Builtin:ArrayPush`, `BytecodeHandler:Ldar`, `RegExp:…`, `Stub:…`: V8's own code.
    const colon = sym.indexOf(':');
    const kind = colon > 0 ? sym.slice(0, colon) : '';
    const name = kind === 'Builtin' ? sym.slice(colon + 1) : sym;
    return {
      name,
      file: '',
      line: 0,
      column: 0,
      category: 'v8',
      tier: kind === 'Builtin' || kind === 'BytecodeHandler' ? 'builtin' : undefined,
    };
  }
  let rest = sym.slice(m[0].length);
  let tier: Tier = 'unknown';
  const mark = TIER_MARKS[rest[0]];
  if (mark) {
    tier = mark;
    rest = rest.slice(1);
  } else {
    // WebAssembly code has no tier mark and no script.
    const w = perfWasmFrame(rest);
    if (w) return w;
  }
  const loc = splitLocation(rest);
  const { name, line, column } = loc;
  // An ES module's script is named by its URL: the same path cpu-prof's frames give (its importer converts too).
  const file = fileUrlToPathAnyOs(loc.file);
  // eval / new Function: a position and no script name, as in a tick log; perf's maps carry no script id,
  // so sources of one name and place share a row. Without this they were V8's own code ("v8").
  if (!file && line > 0) return { ...evalFrame(name || '(anonymous)', line, column, undefined), tier };
  const cls = classifyJsFile(file);
  return {
    name: name || '(anonymous)',
    file,
    line,
    column,
    category: cls.category,
    ...(cls.pkg ? { pkg: cls.pkg } : {}),
    tier,
  };
}

/** `name file:line:col` (see scriptNameSpace), or `name file:line`. */
function splitLocation(rest: string): { name: string; file: string; line: number; column: number } {
  const colon = finalNumberColon(rest);
  const at = colon < 0 ? -1 : scriptNameSpace(rest, colon);
  const loc = at < 0 ? null : LOCATION.exec(rest.slice(at + 1));
  if (!loc) return { name: rest, file: '', line: 0, column: 0 };
  const [file, line, column] = loc[1] !== undefined ? [loc[1], loc[2], loc[3]] : [loc[4], loc[5], '0'];
  return { name: rest.slice(0, at), file, line: wholeNumber(line), column: wholeNumber(column) };
}

/** A line or column: 100 000 digits read as a Number are Infinity, which no view can place. */
const wholeNumber = (s: string): number => {
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : 0;
};
