import { classifyJsFile, evalFrame, type Frame, type Tier } from '../../model';
import type { CodeInfo } from './codeMap';
import { fileUrlToPathAnyOs } from '../../paths';
import { parseJsName } from './fields';
import type { Library } from './native';

/** Code types that carry JavaScript, across V8 versions (`LazyCompile`/`Function` before V8 10). */
export const JS_TYPES = new Set(['JS', 'LazyCompile', 'Function', 'Script', 'Eval']);

const TIERS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };

export function tierOf(mark: string): Tier | undefined {
  return TIERS[mark];
}

export function isJs(info: CodeInfo): boolean {
  return JS_TYPES.has(info.type);
}

/** The frame a code object stands for; `tier` overrides the code's own (inlined callees run in the caller's code). */
export function codeFrame(info: CodeInfo, tier?: Tier): Frame {
  if (isJs(info)) {
    const p = parseJsName(info.name);
    // An ES module's script is named by its URL: the same path cpu-prof's frames give (its importer converts too).
    p.file = fileUrlToPathAnyOs(p.file);
    const t = tier ?? tierOf(info.tierMark) ?? 'unknown';
    // eval / new Function: a position and no script name (builtins have neither).
    if (!p.file && p.line > 0)
      return { ...evalFrame(p.name, p.line, p.column, info.positions?.scriptId ?? info.rawPositions?.scriptId), tier: t };
    const { category, pkg } = classifyJsFile(p.file);
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
