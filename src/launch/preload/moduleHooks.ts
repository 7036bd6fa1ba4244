import type * as NodeModule from 'node:module';

/** A CommonJS module's code as Node compiles it: after any loader's transform (Jest, ts-node, a require hook). */
export interface CompiledModule {
  content: string;
  filename: string;
  /** True for the program's entry module (`require.main`). */
  isMain: boolean;
  /** How long the module's body ran (its top-level code), ms. */
  ranMs: number;
}

const seen: ((m: Omit<CompiledModule, 'ranMs'>) => void)[] = [];
const mainEnd: ((main: MainFunction | undefined) => void)[] = [];
/** The main module's own function (Node's wrapper around its code), when its code is sloppy. */
export type MainFunction = (...args: unknown[]) => unknown;
/** Called by the line appended to the main module; a symbol, so it collides with nothing of the app's. */
const MAIN_END = Symbol.for('node-flame.main-module-end');
const ran: ((m: CompiledModule) => void)[] = [];
let installed = false;

type Compile = (this: NodeModule, content: string, filename: string, ...rest: unknown[]) => unknown;

function install(): void {
  if (installed) return;
  installed = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const proto = (require('node:module') as { prototype: { _compile?: Compile } }).prototype;
  const original = proto._compile;
  if (typeof original !== 'function') return;
  proto._compile = function _compile(this: NodeModule, content: string, filename: string, ...rest: unknown[]) {
    // Node sets `require.main` on the main module's own require only; its id is '.' from the start.
    const isMain = (this as { id?: string }).id === '.';
    for (const f of seen) safely(() => f({ content, filename, isMain }));
    // After the last line, on a line of its own: every position and a trailing sourceMappingURL stay as they were.
    // `arguments.callee` is the module's own function in sloppy code; strict code throws on it, and passes nothing.
    const code =
      isMain && mainEnd.length
        ? `${content}\n;{const e=globalThis[Symbol.for('node-flame.main-module-end')];let c;try{c=arguments.callee}catch{}e?.(c)}\n`
        : content;
    const t0 = performance.now();
    try {
      return original.call(this, code, filename, ...rest);
    } finally {
      const m = { content, filename, isMain, ranMs: performance.now() - t0 };
      for (const f of ran) safely(() => f(m));
    }
  };
}

/**
 * Calls `f` as the main module's last line runs, while its script is still alive: once it returns,
 * nothing may hold the script, and V8 forgets its functions' positions at the next GC. `f` gets the module's
 * own function when its code is sloppy: whoever holds it holds the script (not the module's data, which lives in
 * the call that ended). Not called when the main module ends by a top-level `return` or a throw, nor for an ES
 * module main (which stays alive).
 */
export function atMainModuleEnd(f: (main: MainFunction | undefined) => void): void {
  mainEnd.push(f);
  (globalThis as Record<symbol, unknown>)[MAIN_END] = (main: unknown) => {
    const fn = typeof main === 'function' ? (main as MainFunction) : undefined;
    for (const g of mainEnd) safely(() => g(fn));
  };
  install();
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // a hook of ours must never break the app's require
  }
}

/** Calls `f` with each CommonJS module's code before it runs. */
export function onModuleCompile(f: (m: Omit<CompiledModule, 'ranMs'>) => void): void {
  seen.push(f);
  install();
}

/** Calls `f` once each CommonJS module's top-level code has returned (or thrown). */
export function onModuleRan(f: (m: CompiledModule) => void): void {
  ran.push(f);
  install();
}
