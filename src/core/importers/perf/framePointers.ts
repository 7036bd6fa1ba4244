import type * as Fs from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { offsetToVaddr, readElfLayout, symbolsFor, type ElfLayout, type SymbolTable } from '../../symbols';
import type { Frame } from '../../model';
import type { RecordedLibrary } from './nativeSymbols';
import { parseProcMaps, readProcMaps, type Mapping } from '../v8log/procMaps';

// Loaded on first use, as the perf reader's other node modules: a parser without a check never needs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = () => require('node:fs') as typeof Fs;

/**
 * Drawn between a sample's first frame of user code and what perf gives as its caller, where that code had no frame
 * pointer of its own when it was sampled: perf walks frame pointers, so the first return address it reads is the
 * caller's caller's, and the function that made the call is not in the stack at all.
 */
export const CALLER_NOT_RECORDED: Frame = { name: '(caller not recorded)', file: '', line: 0, column: 0, category: 'unaccounted' };

/** `endbr64`, which may open a function before its `push %rbp`. */
const ENDBR64 = [0xf3, 0x0f, 0x1e, 0xfa];
const PUSH_RBP = 0x55;
const POP_RBP = 0x5d;
const LEAVE = 0xc9;
const RET = 0xc3;
/** How far after `push %rbp` the compiler may put `mov %rsp,%rbp` (an instruction or two scheduled between). */
const MOV_WINDOW = 16;
/**
 * How far into a function its frame may be set up: GCC's shrink-wrapping puts a quick check (and its early return)
 * before `push %rbp` (V8's `Scheduler::ScheduleEarly` sets its frame up 28 bytes in).
 */
const SETUP_WITHIN = 96;
/** A function's bytes are kept up to this size (for its `ret`s); a longer one is judged by its prologue alone. */
const KEEP_BYTES = 1 << 16;

interface Library {
  table: SymbolTable;
  layout: ElfLayout;
  fd: number;
  /** By symbol index: the function's bytes (its first ones at least) and where its frame pointer is set (-1: never). */
  fns: Map<number, { bytes: Buffer; readyAt: number } | null>;
}

/** Which library files may be read for a recording: its build-ids, or (a run folder's scripts) files not changed since. */
export interface LibraryTrust {
  recorded?: RecordedLibrary[];
  /** The files a run's processes mapped (their saved /proc maps) and the time its recording was written (ms). */
  mapped?: { paths: string[]; madeAt: number };
}

/**
 * Tells, for native code perf sampled (a library file and perf's file offset in it), whether it ran with a frame
 * pointer of its own there. Only for libraries on this machine that are the recording's (same build-id, or unchanged
 * since it was made): another build's bytes would answer for other code. Where it cannot tell (no symbol covers the
 * address, the file is gone) it answers that it did: the stack stays as perf gave it.
 */
export class FramePointerCheck {
  private closed = false;

  private constructor(private readonly libs: Map<string, Library>) {}

  /** A check with no library yet (`extend` adds them). */
  static empty(): FramePointerCheck {
    return new FramePointerCheck(new Map());
  }

  static async load(trust: LibraryTrust): Promise<FramePointerCheck> {
    const c = FramePointerCheck.empty();
    await c.extend(trust);
    return c;
  }

  /** Adds the libraries of `trust` not read yet (a live run's processes map more as they start). */
  async extend(trust: LibraryTrust): Promise<void> {
    const ids = new Map((trust.recorded ?? []).map((r) => [r.path, r.id]));
    const paths = trust.recorded ? [...ids.keys()] : (trust.mapped?.paths ?? []);
    for (const path of paths) {
      if (!path.startsWith('/') || this.tried.has(path) || this.closed) continue;
      this.tried.add(path);
      try {
        const layout = await readElfLayout(path);
        if (!layout) continue;
        const same = trust.recorded
          ? !!layout.buildId && ids.get(path) === layout.buildId
          : (await stat(path)).mtimeMs <= trust.mapped!.madeAt;
        if (!same) continue;
        const table = await symbolsFor(path, undefined, layout.symtab);
        if (!table.size || this.closed) continue;
        this.libs.set(path, { table, layout, fd: fs().openSync(path, 'r'), fns: new Map() });
      } catch {
        // nm missing or the file unreadable: its frames stay as perf gave them
      }
    }
  }

  private readonly tried = new Set<string>();

  /** The executable files a run folder's processes mapped (`proc-maps-<pid>.txt`, copies of their /proc maps). */
  static async mappedIn(dir: string): Promise<string[]> {
    const out = new Set<string>();
    for (const n of await readdir(dir).catch(() => [] as string[])) {
      if (/^proc-maps-\d+\.txt$/.test(n)) for (const p of filesOf((await readProcMaps(join(dir, n))) ?? [])) out.add(p);
    }
    return [...out];
  }

  /** Whether the code at `offset` in `lib` ran without its function's own frame pointer (so perf lost its caller). */
  frameless(lib: string, offset: number): boolean {
    const l = this.libs.get(lib);
    if (!l || this.closed) return false;
    const vaddr = offsetToVaddr(l.layout, offset);
    const i = l.table.find(vaddr);
    if (i < 0) return false;
    let fn = l.fns.get(i);
    if (fn === undefined) l.fns.set(i, (fn = readFunction(l, i, offset - (vaddr - l.table.addrs[i]))));
    if (!fn) return false;
    const into = vaddr - l.table.addrs[i];
    if (fn.readyAt < 0 || into < fn.readyAt) return true;
    // At a `ret` right after `pop %rbp` or `leave`: the frame is already gone.
    const b = fn.bytes;
    return into < b.length && b[into] === RET && (b[into - 1] === POP_RBP || b[into - 1] === LEAVE);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of this.libs.values()) fs().closeSync(l.fd);
  }
}

/** The executable files a `/proc/<pid>/maps` text lists. */
export function mappedFiles(maps: string): string[] {
  return filesOf(parseProcMaps(maps));
}

function filesOf(mappings: Mapping[]): string[] {
  const out = new Set<string>();
  for (const m of mappings) if (m.perms.includes('x') && m.path.startsWith('/') && !m.path.endsWith(' (deleted)')) out.add(m.path);
  return [...out];
}

function readFunction(l: Library, i: number, fileOffset: number): { bytes: Buffer; readyAt: number } | null {
  const size = l.table.ends[i] - l.table.addrs[i];
  const b = Buffer.alloc(Math.max(SETUP_WITHIN + 24, Math.min(size > 0 ? size : 0, KEEP_BYTES)));
  let n = 0;
  try {
    n = fs().readSync(l.fd, b, 0, b.length, fileOffset);
  } catch {
    return null;
  }
  if (n < 4) return null;
  const bytes = b.subarray(0, Math.min(n, size > 0 ? size : n));
  return { bytes, readyAt: readyAtIn(b.subarray(0, n)) };
}

/**
 * Bytes from a function's start to the end of the `mov %rsp,%rbp` that sets its frame pointer (after a `push %rbp`
 * within its first bytes), or -1 when it has none there: a leaf compiled without a frame, or assembly (libc's string
 * functions, V8's bytecode handlers, which run in the interpreted function's frame). Read from the file, not
 * disassembled: only that usual prologue is recognized, and anything else counts as frameless.
 */
export function readyAtIn(b: Uint8Array): number {
  let k = 0;
  if (b[0] === ENDBR64[0] && b[1] === ENDBR64[1] && b[2] === ENDBR64[2] && b[3] === ENDBR64[3]) k = 4;
  for (let p = k; p < b.length && p <= k + SETUP_WITHIN; p++) {
    if (b[p] !== PUSH_RBP) continue;
    for (let j = p + 1; j + 2 < b.length && j <= p + MOV_WINDOW; j++) {
      // `mov %rsp,%rbp` in either encoding (48 89 e5, 48 8b ec).
      if (b[j] === 0x48 && ((b[j + 1] === 0x89 && b[j + 2] === 0xe5) || (b[j + 1] === 0x8b && b[j + 2] === 0xec))) return j + 3;
    }
    // The first instruction saves %rbp as any other register: the frame pointer is not this function's.
    if (p === k) return -1;
  }
  return -1;
}
