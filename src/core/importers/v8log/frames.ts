import { classifyJsFile, evalFrame, wasmFrame, type Category, type Frame, type Tier } from '../../model';
import type { CodeInfo } from './codeMap';
import { fileUrlToPathAnyOs } from '../../paths';
import { parseJsName } from './fields';
import type { Library } from './native';

/** The code type given here to WebAssembly functions (the log says `JS`): not JavaScript, so no positions are looked for. */
export const WASM_TYPE = 'Wasm';

/** Code types that carry JavaScript, across V8 versions (`LazyCompile`/`Function` before V8 10). */
export const JS_TYPES = new Set(['JS', 'LazyCompile', 'Function', 'Script', 'Eval']);

const TIERS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };

export function tierOf(mark: string): Tier | undefined {
  return TIERS[mark];
}

export function isJs(info: CodeInfo): boolean {
  return JS_TYPES.has(info.type);
}

interface Place {
  file: string;
  category: Category;
  pkg?: string;
}

/** A log names a few hundred files for thousands of functions: each file's path and class, worked out once. */
const PLACES = new Map<string, Place>();

function placeOf(named: string): Place {
  let p = PLACES.get(named);
  if (!p) {
    // An ES module's script is named by its URL: the same path cpu-prof's frames give (its importer converts too).
    const file = fileUrlToPathAnyOs(named);
    p = { file, ...classifyJsFile(file) };
    // A damaged or endless log could name endless files: past a bound they are worked out each time again.
    if (PLACES.size >= 4096) PLACES.clear();
    PLACES.set(named, p);
  }
  return p;
}

/**
 * The frame a code object stands for; `tier` overrides the code's own (inlined callees run in the caller's code).
 * `isScript`: whether the log named a script so, to tell where the name ends (parseJsName).
 */
export function codeFrame(info: CodeInfo, tier?: Tier, isScript?: (named: string) => boolean): Frame {
  if (isJs(info)) {
    const p = parseJsName(info.name, isScript);
    const place = placeOf(p.file);
    p.file = place.file;
    const t = tier ?? tierOf(info.tierMark) ?? 'unknown';
    // eval / new Function: a position and no script name (builtins have neither).
    if (!p.file && p.line > 0)
      return { ...evalFrame(p.name, p.line, p.column, info.positions?.scriptId ?? info.rawPositions?.scriptId), tier: t };
    const { category, pkg } = place;
    const f: Frame = {
      name: p.name,
      file: p.file,
      line: p.line,
      column: p.column,
      category,
      tier: t,
    };
    if (pkg) f.pkg = pkg;
    return f;
  }
  // The log does not say which module a WebAssembly function is in (its "SFI" field is a pointer): named alone.
  if (info.type === WASM_TYPE) return wasmFrame(info.name, undefined, tier ?? tierOf(info.tierMark));
  if (info.type === 'RegExp') return { name: `RegExp: ${info.name}`, file: '', line: 0, column: 0, category: 'v8', tier: 'builtin' };
  const name = info.name || info.type;
  return { name, file: '', line: 0, column: 0, category: 'v8', tier: 'builtin' };
}

export function nativeFrame(lib: Library, name: string): Frame {
  return { name, file: '', line: 0, column: 0, category: lib.isMain ? 'native' : 'shared-lib', lib: lib.path, tier: 'native' };
}

export const SPECIAL = {
  idle: { name: '(idle)', file: '', line: 0, column: 0, category: 'idle' } as Frame,
  gc: { name: '(garbage collector)', file: '', line: 0, column: 0, category: 'gc' } as Frame,
  unaccounted: { name: '(unaccounted)', file: '', line: 0, column: 0, category: 'unaccounted' } as Frame,
};
