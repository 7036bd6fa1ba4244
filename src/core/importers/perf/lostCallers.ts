import * as l10n from '@vscode/l10n';
import type { Frame } from '../../model';
import { CALLER_NOT_RECORDED } from './framePointers';
import { deepStacksNote, heaviest, TOO_DEEP_NOTE_SHARE } from '../deepStacks';

/**
 * Where a whole stack starts: the process's (`_start` → libc's `main` caller), a thread's (`start_thread`, `clone`),
 * the dynamic loader's, or a new task's first kernel frames before it has a user stack. perf unwinds by frame pointer:
 * a stack that ends anywhere else lost its callers (code without frame pointers, such as OpenSSL's assembly or a
 * libc's `malloc`, hides them), and the flame graph would draw what it sampled as if called from nowhere.
 */
const STACK_STARTS = new Set([
  '_start',
  '__libc_start_main',
  '__libc_start_main_impl',
  '__libc_start_call_main',
  'libc_start_main_stage2',
  'start_thread',
  'thread_start',
  'clone',
  '__clone',
  'clone3',
  '__clone3',
  '__GI___clone3',
  '__GI___clone',
  '_dl_start',
  '_dl_start_user',
  'ret_from_fork',
  'ret_from_fork_asm',
]);

/** The frame a stack that lost its callers is drawn under: what called it is not known. */
export const CALLERS_UNKNOWN: Frame = { name: '(callers unknown)', file: '', line: 0, column: 0, category: 'unaccounted' };

/** The share of samples from which perf mode says that stacks lost their callers. */
export const LOST_CALLERS_NOTE_SHARE = 0.05;

/**
 * Which of a profile's stacks stop short of a stack's start. Only where some stack does reach one: a libc without
 * symbols names no start, and stacks cut from longer ones (an excerpt) reach none; neither says callers were lost.
 */
export class LostCallers {
  private readonly starts = new Map<number, boolean>();
  /** 1 for each stack (by its index) that lost its callers. */
  private readonly lostStacks: Uint8Array;
  private lost = 0;
  private whole = 0;
  private readonly byFrame = new Map<number, number>();
  private tooDeep = 0;
  private readonly tooDeepByFrame = new Map<number, number>();

  /** `cutAt`: how many frames perf lists of a stack cut at its depth limit (Infinity where none was). */
  constructor(
    private readonly frame: (id: number) => Frame,
    stacks: number,
    private readonly cutAt = Infinity,
  ) {
    this.lostStacks = new Uint8Array(stacks);
  }

  /**
   * One stack, leaf first as perf lists it, by its index (below `stacks`). `cut`: a forked child's own frames, cut where the parent's
   * copied stack begins (parser.ts), which end short of a start on purpose.
   */
  add(index: number, leafFirst: ArrayLike<number>, weight: number, cut: boolean, listed = leafFirst.length): void {
    const n = leafFirst.length;
    // Recorded without -g, a stack is its one frame: no caller was looked for.
    if (n < 2 || cut) return;
    const outer = leafFirst[n - 1];
    let starts = this.starts.get(outer);
    if (starts === undefined) this.starts.set(outer, (starts = STACK_STARTS.has(this.frame(outer).name)));
    if (starts) {
      this.whole += weight;
      return;
    }
    if (listed >= this.cutAt) {
      // Not frame pointers: the kernel stopped at its depth limit.
      this.lostStacks[index] = 2;
      this.tooDeep += weight;
      this.tooDeepByFrame.set(outer, (this.tooDeepByFrame.get(outer) ?? 0) + weight);
      return;
    }
    this.lostStacks[index] = 1;
    this.lost += weight;
    // perf's `[unknown]` says only that a caller was there (and `(caller not recorded)` that one was not): the frame
    // named is the outermost one known.
    let i = n - 1;
    while (i > 0 && (this.frame(leafFirst[i]).name === '[unknown]' || this.frame(leafFirst[i]).name === CALLER_NOT_RECORDED.name)) i--;
    this.byFrame.set(leafFirst[i], (this.byFrame.get(leafFirst[i]) ?? 0) + weight);
  }

  /** Whether stack `index` is drawn under CALLERS_UNKNOWN. */
  isLost(index: number): boolean {
    return this.whole > 0 && this.lostStacks[index] === 1;
  }

  /** Whether any stack is. */
  get any(): boolean {
    return this.whole > 0 && this.lost > 0;
  }

  /** Whether stack `index` was cut at perf's depth limit: drawn under STACK_TOO_DEEP. */
  isTooDeep(index: number): boolean {
    return this.lostStacks[index] === 2;
  }

  get anyTooDeep(): boolean {
    return this.tooDeep > 0;
  }

  /** The note for stacks cut at perf's depth limit, where they weigh 1 % of `all` or more. */
  tooDeepNote(all: number): string | undefined {
    if (!(all > 0) || this.tooDeep / all < TOO_DEEP_NOTE_SHARE) return undefined;
    const [top, topWeight] = heaviest(this.tooDeepByFrame);
    return deepStacksNote('perf', this.cutAt, this.tooDeep, all, this.where(top), topWeight);
  }

  private where(id: number): string {
    const f = this.frame(id);
    return f.lib ? `${f.name} (${f.lib.slice(f.lib.lastIndexOf('/') + 1)})` : f.name;
  }

  /** The note for a profile of `all` weight, or undefined where lost stacks weigh little. */
  note(all: number): string | undefined {
    if (!this.any || !(all > 0) || this.lost / all < LOST_CALLERS_NOTE_SHARE) return undefined;
    const [top, topWeight] = heaviest(this.byFrame);
    const where = this.where(top);
    return l10n.t(
      "{0} of the samples' stacks do not reach their thread's start (the most under {1}, {2}): perf follows frame pointers, and code built without them (OpenSSL's assembly, a libc's malloc) hides its callers. That time is drawn under (callers unknown) and missing from its callers' totals. The prof and cpu-prof modes count it in the JavaScript that called it",
      `${((this.lost / all) * 100).toFixed(1)} %`,
      where,
      `${((topWeight / all) * 100).toFixed(1)} %`,
    );
  }
}
