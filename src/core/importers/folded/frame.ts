import { Category, classifyJsFile, Frame, Tier } from '../../model';
import { fileUrlToPathAnyOs } from '../../paths';

const TIERS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };
/** V8's code-kind prefixes as `--perf-basic-prof` and `--prof` name code objects. */
const V8_PREFIX = /^(JS|LazyCompile|Function|Script|Eval|Builtin|BytecodeHandler|Handler|Stub|RegExp|InterpretedFunction|Baseline|Maglev|Turbofan):\s*([~^+*]?)/;
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
  const special = SPECIAL.get(s);
  if (special) return { frame: { name: s, file: '', line: 0, column: 0, category: special }, plain: false, perfStyle: s === '[unknown]' };

  let tier: Tier | undefined;
  let v8Kind = '';
  const pre = V8_PREFIX.exec(s);
  if (pre) {
    v8Kind = pre[1];
    tier = TIERS[pre[2]] ?? undefined;
    s = s.slice(pre[0].length);
  }

  let name = s;
  let file = '';
  let line = 0;
  let column = 0;
  let lib: string | undefined;
  // `name (path:line[:col])` or `name path:line[:col]`; file names may hold spaces inside parentheses.
  const paren = /^(.*?)\s+\(((?:[a-z]:[\\/]|[a-z]+:\/\/|[\\/.~]|node:|internal\/)[^()]*?)(?::(\d+)(?::(\d+))?)?\)$/i.exec(s);
  const bare = paren ? null : /^(.*?)\s+((?:[a-z]:[\\/]|[a-z]+:\/\/|[\\/.~]|node:|internal\/)\S*?)(?::(\d+)(?::(\d+))?)?$/i.exec(s);
  const m = paren ?? bare;
  if (m) {
    const loc = fileUrlToPathAnyOs(m[2]);
    if (m[3] || /\.(?:[cm]?[jt]sx?|node)$/i.test(loc) || loc.startsWith('node:') || loc.startsWith('internal/')) {
      name = m[1];
      file = loc;
      line = m[3] ? Number(m[3]) : 0;
      column = m[4] ? Number(m[4]) : 0;
    } else if (paren) {
      name = m[1];
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
  else if (lib) category = /(^|[\\/])node$/.test(lib) ? 'native' : 'shared-lib';
  else category = 'app';
  const plain = !file && !lib && !note && !v8Kind;
  const frame: Frame = { name, file, line, column, category, ...(pkg ? { pkg } : {}), ...(lib ? { lib } : {}), ...(tier ? { tier } : {}) };
  return { frame, plain, perfStyle };
}
