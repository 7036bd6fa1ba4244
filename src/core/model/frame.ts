import { HAS_BIDI, withoutBidi } from '../chars';
import { NameIndex } from './nameIndex';

export const CATEGORIES = [
  'app',
  'dependency',
  'node',
  'native',
  'v8',
  'gc',
  'shared-lib',
  'kernel',
  'idle',
  'program',
  'unaccounted',
  'eval',
  'wasm',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** V8 code tier as V8 logs it: `~` Ignition, `^` Sparkplug, `+` Maglev, `*` TurboFan. */
export type Tier = 'interpreted' | 'sparkplug' | 'maglev' | 'turbofan' | 'builtin' | 'native' | 'unknown';

export interface SourcePosition {
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
  /** 1-based; 0 when unknown. */
  column: number;
}

/**
 * One distinct function (or code object) a sample can stand in. `file/line/column` are the location
 * reports and navigation use: the original (source-mapped) one when a map exists; `generated` keeps
 * where the code actually ran. `line` is where the function starts, not the line being executed
 * (per-line heat lives in `Profile.lineHits`).
 */
export interface Frame extends SourcePosition {
  name: string;
  category: Category;
  tier?: Tier;
  /** npm package for `dependency`, e.g. `express` or `@scope/pkg`. */
  pkg?: string;
  /** Library or binary path for native / shared-lib / kernel frames. */
  lib?: string;
  generated?: SourcePosition;
}

/** Interns frames so each distinct (name, location, category, tier, lib) gets one id. */
export class FrameTable {
  readonly frames: Frame[] = [];
  private readonly index = new NameIndex();

  intern(f: Frame): number {
    // A right-to-left override in a name or path would show the rest of every label it is in reversed (a
    // spoof): each view and export gets them with their direction controls written out instead.
    if (HAS_BIDI.test(f.name) || HAS_BIDI.test(f.file)) f = { ...f, name: withoutBidi(f.name), file: withoutBidi(f.file) };
    const frames = this.frames;
    return this.index.intern(
      f.name,
      (i) => {
        const g = frames[i];
        return (
          g.file === f.file &&
          g.line === f.line &&
          g.column === f.column &&
          g.category === f.category &&
          (g.tier ?? '') === (f.tier ?? '') &&
          (g.lib ?? '') === (f.lib ?? '')
        );
      },
      () => frames.push(f) - 1,
      (i) => frameKey(frames[i]),
      () => frameKey(f),
    );
  }

  get(id: number): Frame {
    return this.frames[id];
  }

  get size(): number {
    return this.frames.length;
  }
}

/** The fields `FrameTable.intern` compares besides the name, as one string (JSON: no separator a file name could hold). */
function frameKey(f: Frame): string {
  return JSON.stringify([f.file, f.line, f.column, f.category, f.tier ?? '', f.lib ?? '']);
}

const PRELOAD_BUNDLE = /[\\/]dist[\\/]preload-stop\.js$/;
const NODE_MODULES = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/;

/**
 * Category of a JavaScript frame from its script path; `undefined` file means V8 gave none.
 * Node core scripts appear as `node:fs`, `internal/...` or bare `fs`/`events.js` names.
 */
export function classifyJsFile(file: string): { category: Category; pkg?: string } {
  if (!file) return { category: 'v8' };
  if (file.startsWith('node:') || file.startsWith('internal/') || file.startsWith('internal\\')) {
    return { category: 'node' };
  }
  // Node Flame's own preload (its require hook is on every module's stack): machinery, like Node's loader.
  if (PRELOAD_BUNDLE.test(file)) return { category: 'node' };
  const m = NODE_MODULES.exec(file);
  if (m) {
    const pkg = m[1].replace(/\\/g, '/');
    return { category: 'dependency', pkg };
  }
  // Core modules in older logs are bare names like `events.js` or `fs`: no directory part.
  if (!/[\\/]/.test(file) && !/^[a-z]+:\/\//i.test(file) && /^[a-z_][\w/.-]*$/i.test(file) && !file.includes('.ts')) {
    return { category: 'node' };
  }
  return { category: 'app' };
}

/**
 * A function of code made at run time (`eval`, `new Function`, `vm` without a file name): V8 gives it a
 * position but no script URL. Every `new Function` is called `anonymous` at 1:10, so the script's id
 * (one per compiled source) keeps the sources apart, and the name says what it is.
 */
export function evalFrame(name: string, line: number, column: number, scriptId: string | number | undefined): Frame {
  const id = scriptId !== undefined && String(scriptId) !== '' && String(scriptId) !== '0' ? ` #${scriptId}` : '';
  return { name: `${name} (eval'd code${id})`, file: '', line, column, category: 'eval' };
}

/** The URL a `.cpuprofile` export gives WebAssembly code whose module the profile did not name (a tick log's, perf's). */
const UNKNOWN_WASM_MODULE = 'wasm://wasm/';

/** A WebAssembly frame's script URL in a `.cpuprofile`: its module's, as V8 wrote it, or `wasm://wasm/` when unknown. */
export const wasmUrl = (f: Frame): string => f.lib ?? UNKNOWN_WASM_MODULE;

/** V8's name for a WebAssembly function its module's name section does not name. */
export const isDefaultWasmName = (name: string): boolean => /^wasm-function\[\d+\]$/.test(name);

/** The URL V8 gives a WebAssembly module's code in `.cpuprofile`s and traces (`wasm://wasm/<hash>`). */
export const isWasmUrl = (url: string): boolean => url.startsWith('wasm://');

/**
 * A WebAssembly function: V8 names it from its module's name section, else `wasm-function[<index>]`. It has no source
 * line (V8's position in it is a byte offset into the module), so none is given; `module`, where the profile names one
 * (cpu-prof: `wasm://wasm/<hash>`), is kept as its library, so same-named functions of two modules stay two rows.
 */
export function wasmFrame(name: string, module?: string, tier?: Tier): Frame {
  if (module === UNKNOWN_WASM_MODULE) module = undefined;
  return {
    name: name || '(anonymous)',
    file: '',
    line: 0,
    column: 0,
    category: 'wasm',
    ...(module ? { lib: module } : {}),
    ...(tier ? { tier } : {}),
  };
}

export function frameLabel(f: Frame): string {
  const loc = f.file ? ` ${f.file}${f.line ? `:${f.line}` : ''}${f.column ? `:${f.column}` : ''}` : '';
  return `${f.name}${loc}`;
}

/** Longest name or path a view shows: enough to read and search, while a damaged profile's 100 MB name stays out of pages and pictures. */
export const MAX_SHOWN_CHARS = 4096;

export function capped(s: string): string {
  return s.length <= MAX_SHOWN_CHARS ? s : `${s.slice(0, MAX_SHOWN_CHARS - 1)}…`;
}
