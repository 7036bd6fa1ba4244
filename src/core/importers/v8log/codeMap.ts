import type { Tier } from '../../model';
import type { Resolved } from './resolver';
import { AddressTable } from './addressTable';

/** One code object V8 announced with `code-creation`. */
export interface CodeEntry {
  start: number;
  size: number;
  /** Index into the importer's code-kind table (resolved lazily into frames). */
  info: CodeInfo;
  /** Bumped when the entry leaves the map (deleted, overwritten, moved): an answer kept for an address in it is stale. */
  gen: number;
}

export interface CodeInfo {
  type: string;
  name: string;
  /** `~ ^ + *` for JS code, '' otherwise. */
  tierMark: string;
  sfi: number;
  /** Filled when a `code-source-info` line arrives for this code. */
  positions?: SourcePositions;
  /** `code-source-info` fields not parsed yet. */
  rawPositions?: { scriptId: number; positions: string; inlinings: string; fns: (CodeInfo | undefined)[] };
  /** Frame id of the function itself, interned on first use; -1 until then (a number from the start: one field representation). */
  frameId: number;
  /**
   * Frame id of this function inlined into code of tier `inlinedTier`, once asked (resolver.ts); -1 until then, and
   * again when `code-source-info` arrives (an eval'd function's frame is named by its script id).
   */
  inlinedId?: number;
  inlinedTier?: Tier;
  /** The address resolver's answers for this code, by code offset (resolver.ts), and the resolver epoch they are of. */
  answers?: { epoch: number; byOffset: Map<number, Resolved>; byRow: Map<number, Resolved> | undefined };
}

export interface SourcePositions {
  scriptId: number;
  /** Pairs of (code offset, script offset), sorted by code offset; inlining id per pair (-1 = outer). */
  codeOffsets: Int32Array;
  scriptOffsets: Int32Array;
  inlining: Int32Array;
  /** Inlining table: function (index into `fns`), call-site script offset in the parent, parent id. */
  inlFn: Int32Array;
  inlPos: Int32Array;
  inlParent: Int32Array;
  /** Inlined functions by SharedFunctionInfo, resolved when the info was read. */
  fns: (CodeInfo | undefined)[];
}

const PAGE = 4096;
const MAX_CODE_SIZE = 64 << 20;
/** Objects spanning more pages than this are big: V8's code objects almost never are. */
const BIG_PAGES = 16;
/**
 * Pages the big objects may index in all (256 MiB of code). Each page is a bucket to fill and to clear,
 * so a log claiming 64 MiB per object (2 000 lines: 32 million buckets, past a Map's size) would take
 * minutes; past the budget a big object is indexed for its first 64 KiB only.
 */
const BIG_PAGE_BUDGET = 1 << 16;

/**
 * Address → code object for V8's heap, bucketed by 4 KiB page: V8 creates, moves and deletes
 * code while ticks arrive, so a sorted array would be re-sorted constantly. Most objects fit one
 * or two pages, so buckets stay tiny.
 */
export class CodeMap {
  /**
   * By page number + 1 and by start + 1 (the tables' keys are past 0). Not Maps: page numbers and addresses are past 2^31, and a Map
   * boxes each such key it is asked about (a code object is 3 lookups to add, each new address one to find). A page
   * whose objects all went keeps its empty bucket, as an address whose object went keeps its slot, emptied.
   */
  private readonly pages = new AddressTable<CodeEntry[]>();
  private readonly byStart = new AddressTable<CodeEntry | undefined>();
  /** Bumped whenever an address may start resolving differently (move, delete, overwrite). */
  generation = 0;
  private bigPages = 0;
  /** Big objects indexed only in part, once the budget was spent (the importer warns). */
  clamped = 0;

  add(start: number, size: number, info: CodeInfo): CodeEntry {
    // A damaged size (4 GiB, 2^60) would index a page per 4 KiB; no code object comes near 64 MiB.
    size = Math.min(Math.max(size, 1), MAX_CODE_SIZE);
    const pages = Math.ceil(size / PAGE) + 1;
    if (pages > BIG_PAGES) {
      if (this.bigPages + pages > BIG_PAGE_BUDGET) {
        size = BIG_PAGES * PAGE;
        this.clamped++;
      } else this.bigPages += pages;
    }
    const e: CodeEntry = { start, size, info, gen: 0 };
    this.removeCovered(start, e.size);
    this.insert(e);
    return e;
  }

  get(start: number): CodeEntry | undefined {
    return this.byStart.get(start + 1);
  }

  find(addr: number): CodeEntry | undefined {
    const bucket = this.pages.get(Math.floor(addr / PAGE) + 1);
    if (!bucket) return undefined;
    for (let i = bucket.length - 1; i >= 0; i--) {
      const e = bucket[i];
      if (addr >= e.start && addr < e.start + e.size) return e;
    }
    return undefined;
  }

  move(from: number, to: number): boolean {
    const e = this.byStart.get(from + 1);
    if (!e) return false;
    this.remove(e);
    this.removeCovered(to, e.size);
    e.start = to;
    this.insert(e);
    this.generation++;
    return true;
  }

  delete(start: number): boolean {
    const e = this.byStart.get(start + 1);
    if (!e) return false;
    this.remove(e);
    this.generation++;
    return true;
  }

  private insert(e: CodeEntry): void {
    this.byStart.set(e.start + 1, e);
    const last = Math.floor((e.start + e.size - 1) / PAGE);
    for (let p = Math.floor(e.start / PAGE); p <= last; p++) {
      let b = this.pages.get(p + 1);
      if (!b) this.pages.set(p + 1, (b = []));
      b.push(e);
    }
  }

  private remove(e: CodeEntry): void {
    e.gen++;
    if (this.byStart.get(e.start + 1) === e) this.byStart.set(e.start + 1, undefined);
    const last = Math.floor((e.start + e.size - 1) / PAGE);
    for (let p = Math.floor(e.start / PAGE); p <= last; p++) {
      const b = this.pages.get(p + 1);
      if (!b) continue;
      const i = b.indexOf(e);
      if (i >= 0) b.splice(i, 1);
    }
  }

  /** Code the GC freed without a `code-delete` is overwritten by new code at the same place. */
  private removeCovered(start: number, size: number): void {
    const end = start + size;
    const last = Math.floor((end - 1) / PAGE);
    for (let p = Math.floor(start / PAGE); p <= last; p++) {
      const b = this.pages.get(p + 1);
      if (!b) continue;
      // Backwards: removing an entry shifts only those after it, already seen.
      for (let i = b.length - 1; i >= 0; i--) {
        const e = b[i];
        if (e.start < end && e.start + e.size > start) {
          this.remove(e);
          this.generation++;
        }
      }
    }
  }
}
