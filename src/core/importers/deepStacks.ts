import * as l10n from '@vscode/l10n';
import type { Frame } from '../model';

/**
 * The frame a stack cut at the sampler's depth limit is drawn under: its outermost callers were never recorded, and
 * without it the frame where the cut fell would be drawn as if nothing called it (a recursion 400 deep read
 * `down` as a root on 39 % of the samples, and its caller's total 39 points short).
 */
export const STACK_TOO_DEEP: Frame = { name: '(stack too deep)', file: '', line: 0, column: 0, category: 'unaccounted' };

/** The frames V8's sampler keeps of a stack (TickSample::kMaxFramesCount), for `--prof` and `--cpu-prof` alike. */
export const V8_MAX_FRAMES = 255;

/** The JavaScript frames V8's heap sampler keeps of an allocation's stack (the inspector's default stack depth). */
export const V8_HEAP_MAX_FRAMES = 128;

/** perf's default depth, `kernel.perf_event_max_stack`: where no stack is deeper, stacks of that many were cut. */
export const PERF_DEFAULT_MAX_STACK = 127;

/** The share of samples from which a profile says that stacks were cut at the sampler's depth limit. */
export const TOO_DEEP_NOTE_SHARE = 0.01;

/** The heaviest entry of a weight map (frame → weight): [key, weight], or [-1, -1] when empty. */
export function heaviest(by: Map<number, number>): [number, number] {
  let top = -1;
  let topWeight = -1;
  for (const [f, w] of by) if (w > topWeight) [top, topWeight] = [f, w];
  return [top, topWeight];
}

/** What one mode can say of its cut stacks: how deep the sampler goes, and how to go deeper where one can. */
export type DepthLimit = 'v8' | 'v8-heap' | 'perf';

/**
 * The warning for cut stacks weighing `cut` of `all`, the most of them where the cut fell in `top` (its share `topShare`
 * of all); undefined where none were.
 */
export function deepStacksNote(
  limit: DepthLimit,
  frames: number,
  cut: number,
  all: number,
  top: string,
  topShare: number,
): string | undefined {
  if (!(cut > 0 && all > 0)) return undefined;
  const share = `${((cut / all) * 100).toFixed(1)} %`;
  const under = `${((topShare / all) * 100).toFixed(1)} %`;
  if (limit === 'v8-heap')
    return l10n.t(
      "{0} of the bytes were allocated by stacks as deep as V8's heap sampler goes ({1} JavaScript frames; the most where the cut fell in {2}, {3}): their outermost callers were not recorded. Those bytes are drawn under (stack too deep) and missing from their callers' totals",
      share,
      frames,
      top,
      under,
    );
  return limit === 'perf'
    ? l10n.t(
        "{0} of the samples' stacks were cut at perf's depth limit ({1} frames, kernel.perf_event_max_stack; the most where the cut fell in {2}, {3}): their outermost callers were not recorded. That time is drawn under (stack too deep) and missing from its callers' totals. Raise the limit as root (sysctl kernel.perf_event_max_stack=1024) and record again to see them",
        share,
        frames,
        top,
        under,
      )
    : l10n.t(
        "{0} of the samples' stacks are as deep as V8's sampler goes ({1} frames; the most where the cut fell in {2}, {3}): their outermost callers were not recorded. That time is drawn under (stack too deep) and missing from its callers' totals; perf mode (--mode perf) can record deeper stacks once its limit is raised",
        share,
        frames,
        top,
        under,
      );
}
