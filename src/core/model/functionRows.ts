import type { Frame } from './frame';
import type { Profile } from './profile';
import { viewFrames } from './viewOptions';
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
  // The merged view's totals read from the profile's own tree through the frame map: the merged tree itself (a rewrite
  // of every node, 0.15-0.3 s of a report of tsc's 240 000-node tick log) was made only to be walked once.
  const { frames, frameMap } = viewFrames(profile, { mergeBy: 'function' });
  return functionStats(profile.tree, frames.length, frameMap).map((s) => ({ ...s, frame: frames[s.frame] }));
}
