import { statSync } from 'node:fs';
import { basename } from 'node:path';
import * as l10n from '@vscode/l10n';
import { debugFileFor, NmMissingError, offsetToVaddr, readElfLayout, symbolsFor, type ElfLayout, type SymbolTable } from '../../symbols';
import type { Mapping } from './procMaps';

export interface Library {
  path: string;
  /** Address of file offset 0, as V8 logs it (mapping start minus its file offset). */
  start: number;
  end: number;
  isMain: boolean;
  layout: ElfLayout | null;
  symbols: SymbolTable | null;
}

/** An executable mapping the log never mentions: a copy of part of a library (remapped builtins). */
interface Remap {
  start: number;
  end: number;
  /** Added to an address in the copy to get the address in the original mapping. */
  delta: number;
}

export interface NativeHit {
  lib: Library;
  name: string;
}

/** How many missing libraries get a warning of their own; the rest are counted in one. */
const MISSING_NAMED = 5;

/** Libraries of one process and their C++ symbols; shared by all isolates of that process. */
export class NativeResolver {
  readonly libs: Library[] = [];
  /** By start: rebuilt on the first lookup after libraries were added (a log may list thousands). */
  private sorted: Library[] | null = [];
  /** Per entry of `sorted`: the largest end up to it, to find the first library covering an address. */
  private maxEnd: number[] = [];
  private readonly byStartPath = new Map<string, Library>();
  private readonly byPath = new Map<string, Library>();
  private main: Library | undefined;
  private readonly remaps: Remap[] = [];
  private readonly warned = new Set<string>();
  private readonly said: string[] = [];
  /** Libraries named by the log that are not files here, past the first few named in a warning each. */
  private unnamedMissing = 0;
  private namedMissing = 0;
  private loads: Promise<void>[] = [];
  private readonly cache = new Map<number, NativeHit | null>();
  /** Bumped whenever an address may resolve otherwise than before. */
  version = 0;

  constructor(
    private readonly signal?: AbortSignal,
    /** False in an untrusted workspace: `nm` is not run on the binaries a log names. */
    private readonly runNm = true,
  ) {}

  /** `shared-library` lines repeat per executable segment: one library spans them all. */
  addLibrary(path: string, start: number, end: number): void {
    if (!(end > start)) return;
    const key = `${start}\0${path}`;
    const same = this.byStartPath.get(key);
    if (same) {
      if (end > same.end) {
        same.end = end;
        this.sorted = null;
        this.cache.clear();
        this.version++;
      }
      return;
    }
    // A worker isolate's log lists V8's copy of the embedded builtins (`--short-builtin-calls`) as the
    // node binary again at another address: a copy of code the binary holds, whose ticks are V8
    // builtins found through the original address, not a shared library of its own.
    const known = this.byPath.get(path);
    if (known && (end <= known.start || start >= known.end)) {
      this.addRemap(start, end, known.start - start);
      return;
    }
    const lib: Library = { path, start, end, isMain: false, layout: null, symbols: null };
    if (!this.main && path.startsWith('/') && !path.includes('.so')) {
      lib.isMain = true;
      this.main = lib;
    }
    this.libs.push(lib);
    this.byStartPath.set(key, lib);
    if (!this.byPath.has(path)) this.byPath.set(path, lib);
    this.sorted = null;
    this.cache.clear();
    this.version++;
    if (path.startsWith('/') && this.isHere(path)) this.loads.push(this.load(lib));
  }

  /**
   * A stat (no open, so a FIFO is never touched) before the asynchronous read: a log of another machine may name
   * tens of thousands of libraries, and each failed open through the thread pool cost ~50 µs (40 000: 2.2 s).
   */
  private isHere(path: string): boolean {
    let here = true;
    try {
      // Only a missing file is settled here: anything else (a FIFO, a folder) is read as before, which says why not.
      here = statSync(path, { throwIfNoEntry: false }) !== undefined;
    } catch {
      here = true;
    }
    if (!here) {
      if (this.namedMissing++ < MISSING_NAMED)
        this.warn(l10n.t('{0}: not found or not an ELF file here, so its frames are named by offset', path));
      else this.unnamedMissing++;
    }
    return here;
  }

  private load(lib: Library): Promise<void> {
    return (async () => {
      try {
        lib.layout = await readElfLayout(lib.path);
      } catch (e) {
        // A folder or a device named as a library: that library goes without symbols, the import goes on.
        this.warn(l10n.t('{0}: {1}, so its frames are named by offset', lib.path, (e as Error).message));
        return;
      }
      if (!lib.layout) {
        this.warn(l10n.t('{0}: not found or not an ELF file here, so its frames are named by offset', lib.path));
        return;
      }
      if (!this.runNm) {
        this.warn(
          l10n.t(
            'C++ symbols are not read in an untrusted workspace (Node Flame does not run nm on the libraries a log names there): C++ frames are named by library and offset',
          ),
        );
        return;
      }
      try {
        lib.symbols = (await this.debugSymbols(lib.layout)) ?? (await symbolsFor(lib.path, this.signal, lib.layout.symtab));
        if (lib.symbols.size === 0) this.warn(l10n.t('{0} has no symbols, so its frames are named by offset', lib.path));
      } catch (e) {
        if (e instanceof NmMissingError) this.warn(l10n.t('`nm` (binutils) is not installed: C++ frames are named by library and offset'));
        else this.warn(l10n.t('could not read the symbols of {0}: {1}', lib.path, (e as Error).message));
      }
    })();
  }

  /**
   * A stripped library's (distributions ship them so) static functions are only in its debug file: libc's memmove
   * variants, which a big copy or read spends its time in, were five rows of `libc.so.6+0x…` where perf mode named
   * them. The debug file's symbol table holds the exported ones too. Null: no debug file here.
   */
  private async debugSymbols(layout: ElfLayout): Promise<SymbolTable | null> {
    if (layout.symtab !== false || !layout.buildId) return null;
    const file = await debugFileFor(layout.buildId);
    if (!file) return null;
    const t = await symbolsFor(file, this.signal, true).catch(() => null);
    return t && t.size > 0 ? t : null;
  }

  /** Waits for every symbol table started so far. */
  async ready(): Promise<void> {
    const l = this.loads;
    this.loads = [];
    await Promise.all(l);
  }

  get loading(): boolean {
    return this.loads.length > 0;
  }

  private warn(m: string): void {
    // A Set, not said.includes: a log may name tens of thousands of missing libraries.
    if (this.warned.has(m)) return;
    this.warned.add(m);
    this.said.push(m);
  }

  get warnings(): string[] {
    if (!this.unnamedMissing) return this.said;
    return [
      ...this.said,
      l10n.t('{0} more libraries the log names are not files here, so their frames are named by offset', this.unnamedMissing),
    ];
  }

  /**
   * Uses the process's saved `/proc/<pid>/maps`: executable mappings of a known file that no
   * `shared-library` line covers are copies (V8 remaps its embedded builtins near JIT code).
   * Libraries loaded after V8 logged its list (native addons) are added too.
   */
  useProcMaps(maps: Mapping[]): number {
    let n = 0;
    for (const m of maps) {
      if (!m.perms.includes('x') || !m.path.startsWith('/')) continue;
      const lib = this.byPath.get(m.path);
      if (!lib) {
        this.addLibrary(m.path, m.start - m.offset, m.end);
        continue;
      }
      if (m.start >= lib.start && m.end <= lib.end) continue;
      this.addRemap(m.start, m.end, lib.start + m.offset - m.start);
      n++;
    }
    return n;
  }

  addRemap(start: number, end: number, delta: number): void {
    if (this.remaps.some((r) => r.start === start)) return;
    this.remaps.push({ start, end, delta });
    this.cache.clear();
    this.version++;
  }

  /** The original address of an address inside a known copy, or NaN. */
  unmap(addr: number): number {
    for (const r of this.remaps) if (addr >= r.start && addr < r.end) return addr + r.delta;
    return NaN;
  }

  libraryAt(addr: number): Library | undefined {
    const s = this.sortedLibs();
    let lo = 0;
    let hi = s.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid].start <= addr) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (last < 0) return undefined;
    if (addr < s[last].end) return s[last];
    // Overlapping starts are possible (several segments logged from one base): the first library
    // (by start) reaching past addr covers it, found on the running maximum of ends.
    const maxEnd = this.maxEnd;
    if (maxEnd[last] <= addr) return undefined;
    lo = 0;
    hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (maxEnd[mid] > addr) hi = mid;
      else lo = mid + 1;
    }
    return s[lo];
  }

  private sortedLibs(): Library[] {
    if (!this.sorted) {
      const s = [...this.libs].sort((a, b) => a.start - b.start);
      this.maxEnd = new Array<number>(s.length);
      let m = -Infinity;
      for (let i = 0; i < s.length; i++) this.maxEnd[i] = m = Math.max(m, s[i].end);
      this.sorted = s;
    }
    return this.sorted;
  }

  get mainLibrary(): Library | undefined {
    return this.main;
  }

  /** C++ function at `addr`, or the library and offset when it has no symbol there. */
  resolve(addr: number): NativeHit | null {
    const c = this.cache.get(addr);
    if (c !== undefined) return c;
    let hit: NativeHit | null = null;
    const lib = this.libraryAt(addr);
    if (lib) {
      const fileOff = addr - lib.start;
      // Works for non-PIE too: V8 logs the base a file offset is relative to, not the link address.
      const vaddr = offsetToVaddr(lib.layout, fileOff);
      const i = lib.symbols ? lib.symbols.find(vaddr) : -1;
      const name = i >= 0 ? lib.symbols!.name(i) : '';
      hit = { lib, name: name || `${basename(lib.path)}+0x${fileOff.toString(16)}` };
    }
    this.cache.set(addr, hit);
    return hit;
  }
}
