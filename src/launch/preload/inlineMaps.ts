import { constants, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type * as Vm from 'node:vm';
import { threadId } from 'node:worker_threads';
import { RUN_DIR_ENV } from '../run/processRecords';
import { onModuleCompile } from './moduleHooks';
import { inlineMapFileName, SCRIPT_NAMED, TRANSFORMED_NO_MAP } from '../../core/announcedSourceMaps';
import { CREATE_NEW } from '../../core/safeWrite';

/** The data: URL of a code's last `//# sourceMappingURL=data:…` comment (`//@` too), or undefined. */
export function inlineMapUrl(code: string): string | undefined {
  const at = code.lastIndexOf('sourceMappingURL=data:');
  if (at < 0) return undefined;
  // `//# sourceMappingURL=` (`//@`, `/*#`), with or without the space
  if (!/\/[/*][#@] ?$/.test(code.slice(Math.max(0, at - 4), at))) return undefined;
  const end = code.slice(at).search(/[\s*]/);
  const url = code.slice(at + 'sourceMappingURL='.length, end < 0 ? code.length : at + end);
  // The words inside a string of the code (a loader's own bundle builds such comments: tsx's does) are no map.
  if (/["'`\\<>{}]/.test(url) || !/^[ \t]*(?:\*\/[ \t]*)?(?:\r?\n|$)/.test(code.slice(at + 'sourceMappingURL='.length + url.length)))
    return undefined;
  return url;
}

/**
 * Code a tool transforms in memory and evaluates itself carries its source map inline, and only in
 * memory: babel-jest runs each test file's Babel output through `vm.Script`, vite-node (vitest) through
 * `vm.runInThisContext`, ts-node and require hooks through `Module.prototype._compile`. V8's positions are
 * those of that output, so the preload appends each file's inline map, as the code is compiled, to
 * `sourcemaps-<pid>-<thread>.jsonl` in the run folder (announcedSourceMaps.ts reads them back). Appended at
 * once, not saved later: a worker thread ended by terminate() gets no 'exit' event, and one whose test code
 * blocks its loop until then (vitest's threads pool) runs no timer either. A file whose compiled code differs
 * from the file on disk and has no map is written with an empty map, so the report can say its lines may be off.
 */
export function captureInlineMaps(): void {
  const dir = process.env[RUN_DIR_ENV];
  if (!dir) return;
  const maps = new Map<string, string>();
  const named = new Set<string>();
  let fd: number | undefined;
  let failed = false;
  const append = (file: string, ref: string | typeof SCRIPT_NAMED) => {
    if (failed) return;
    try {
      // A new file only (no link followed, nothing of another's overwritten), kept open for the next entries.
      fd ??= openSync(join(dir, inlineMapFileName(process.pid, threadId)), CREATE_NEW | constants.O_APPEND, 0o644);
      writeSync(fd, JSON.stringify([file, ref]) + '\n');
    } catch {
      // no maps is a profile with the positions of the code that ran, never a failed app
      failed = true;
    }
  };
  const see = (code: unknown, filename: unknown) => {
    if (
      typeof code !== 'string' ||
      typeof filename !== 'string' ||
      !filename ||
      filename.startsWith('node:') ||
      filename.startsWith('evalmachine')
    )
      return;
    if (!named.has(filename) && namedWithSpaces(filename)) {
      named.add(filename);
      append(filename, SCRIPT_NAMED);
    }
    const url = inlineMapUrl(code);
    const ref = url ?? (!maps.has(filename) && transformed(code, filename) ? TRANSFORMED_NO_MAP : undefined);
    if (ref === undefined || maps.get(filename) === ref) return;
    maps.set(filename, ref);
    append(filename, ref);
  };
  onModuleCompile((m) => see(m.content, m.filename));
  hookVm(see);
}

/**
 * A script named with a space and not by a path (`vm.runInThisContext(code, { filename: 'my template.ejs' })`): perf's
 * JIT maps write `render my template.ejs:1:10`, where nothing tells where the name ends and the script's begins.
 */
function namedWithSpaces(filename: string): boolean {
  return filename.includes(' ') && !/^(?:[\\/]|[a-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/)/i.test(filename);
}

/** Code that is not the file's own text, wrapped or not (Jest and Module.wrap add a wrapper around it). */
function transformed(code: string, filename: string): boolean {
  try {
    // The common case costs a stat: Node's own loader compiles the file's text as it is.
    if (Buffer.byteLength(code) === statSync(filename).size) return false;
    const text = readFileSync(filename, 'utf8').replace(/^\uFEFF/, '');
    return !code.includes(text);
  } catch {
    return false;
  }
}

function hookVm(see: (code: unknown, filename: unknown) => void): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const vm = require('node:vm') as typeof Vm;
  const Base = vm.Script;
  class Script extends Base {
    constructor(code: string, options?: Vm.ScriptOptions | string) {
      see(code, typeof options === 'string' ? options : options?.filename);
      super(code, options as Vm.ScriptOptions);
    }
  }
  const compileFunction = vm.compileFunction;
  const compile = function (code: string, params?: readonly string[], options?: Vm.CompileFunctionOptions) {
    see(code, options?.filename);
    return compileFunction(code, params, options);
  };
  // vm's run* functions build Node's own Script, not the export replaced above: vite-node (vitest's test files) runs
  // each transformed module with vm.runInThisContext, its map inline.
  const filenameOf = (options: unknown): unknown =>
    typeof options === 'string' ? options : (options as { filename?: unknown } | undefined)?.filename;
  /** `f` seeing its code (the first argument) and the filename of its options (argument `at`) first. */
  const seeing = <F extends (...a: never[]) => unknown>(f: F, at: number): F =>
    function (this: unknown, ...a: Parameters<F>) {
      see(a[0], filenameOf(a[at]));
      return f.apply(this, a);
    } as F;
  const replaced: Partial<typeof Vm> = {
    Script,
    compileFunction: compile,
    runInThisContext: seeing(vm.runInThisContext, 1),
    runInContext: seeing(vm.runInContext, 2),
    runInNewContext: seeing(vm.runInNewContext, 2),
  };
  try {
    for (const [k, value] of Object.entries(replaced))
      Object.defineProperty(vm, k, { value, writable: true, configurable: true, enumerable: true });
  } catch {
    // a frozen vm module: maps of code it evaluates are not seen
  }
}
