import * as l10n from '@vscode/l10n';
import type { Frame } from '../../model';

/**
 * Where a whole stack starts: the process's (`_start` → libc's `main` caller), a thread's (`start_thread`, `clone`),
 * the dynamic loader's, or a new task's first kernel frames before it has a user stack. perf unwinds by frame pointer:
 * a stack that ends anywhere else lost its callers (code without frame pointers, such as OpenSSL's assembly or a
 * libc's `malloc`, hides them), and the flame graph draws what it sampled as if called from nowhere.
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

/** The share of samples from which perf mode says that stacks lost their callers. */
export const LOST_CALLERS_NOTE_SHARE = 0.05;

/** Sums, over a profile's stacks, the weight of those that do not reach a stack's start, by their outermost known frame. */
export class LostCallers {
  private readonly starts = new Map<number, boolean>();
  private lost = 0;
  private readonly byFrame = new Map<number, number>();
  /** Whether any stack has a caller: recorded without -g, every stack is one frame and none lost anything. */
  private callchains = false;

  constructor(private readonly frame: (id: number) => Frame) {}

  /** `frames`: one stack, outermost first. */
  add(frames: ArrayLike<number>, weight: number): void {
    if (frames.length === 0) return;
    if (frames.length > 1) this.callchains = true;
    const outer = frames[0];
    let starts = this.starts.get(outer);
    if (starts === undefined) this.starts.set(outer, (starts = STACK_STARTS.has(this.frame(outer).name)));
    if (starts) return;
    this.lost += weight;
    // perf's `[unknown]` says only that a caller was there: the frame named is the first one known.
    let i = 0;
    while (i < frames.length - 1 && this.frame(frames[i]).name === '[unknown]') i++;
    this.byFrame.set(frames[i], (this.byFrame.get(frames[i]) ?? 0) + weight);
  }

  /** The note for a profile of `all` weight, or undefined where lost stacks weigh little. */
  note(all: number): string | undefined {
    if (!this.callchains || !(all > 0) || this.lost / all < LOST_CALLERS_NOTE_SHARE) return undefined;
    let top = -1;
    let topWeight = -1;
    for (const [f, w] of this.byFrame) if (w > topWeight) [top, topWeight] = [f, w];
    const f = this.frame(top);
    const where = f.lib ? `${f.name} (${f.lib.slice(f.lib.lastIndexOf('/') + 1)})` : f.name;
    return l10n.t(
      "{0} of the samples' stacks do not reach their thread's start (the most under {1}, {2}): perf follows frame pointers, and code built without them (OpenSSL's assembly, a libc's malloc) hides its callers. That time is drawn at the root and missing from its callers' totals. The prof and cpu-prof modes count it in the JavaScript that called it",
      `${((this.lost / all) * 100).toFixed(1)} %`,
      where,
      `${((topWeight / all) * 100).toFixed(1)} %`,
    );
  }
}
