import type { Frame } from './frame';
import type { Profile } from './profile';
import { applyViewOptions } from './viewOptions';
import { functionStats, type FunctionStat } from './views';

/** One row per function: its weights, and its frame as the view shows it (tier dropped when its tiers differ). */
export interface FunctionRow extends Omit<FunctionStat, 'frame'> {
  frame: Frame;
}

/**
 * The functions of a profile, each once: V8 gives one frame per tier a function ran in (`~callerA`,
 * `*callerA`), and a table of frames lists it twice with its weight split, wrong for anyone reading
 * `total`. Merged as the viewer merges them (same name, file and line), so every output agrees.
 */
export function functionRows(profile: Profile): FunctionRow[] {
  const view = applyViewOptions(profile, { mergeBy: 'function' });
  return functionStats(view.tree, view.frames.length).map((s) => ({ ...s, frame: view.frames[s.frame] }));
}
