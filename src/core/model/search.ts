import type { CallTree } from './callTree';
import type { Frame } from './frame';
import { budgetedTest, safeRegex } from './transforms';

/**
 * Weight of the samples with a matching frame anywhere on their stack, each sample counted once
 * however many matching frames it has (a match below a match adds nothing).
 */
export function matchedWeight(tree: CallTree, frames: readonly Frame[], test: (name: string) => boolean): number {
  const hit = new Int8Array(frames.length).fill(-1);
  const under = new Uint8Array(tree.count);
  const total = tree.total;
  let sum = 0;
  // Parents have lower ids than their children, so one forward pass sees every ancestor first.
  for (let i = 1; i < tree.count; i++) {
    if (under[tree.parent[i]]) {
      under[i] = 1;
      continue;
    }
    const f = tree.frame[i];
    if (hit[f] < 0) hit[f] = test(frames[f].name) ? 1 : 0;
    if (hit[f]) {
      under[i] = 1;
      sum += total[i];
    }
  }
  return sum;
}

/** A case-insensitive matcher for plain text or a regular expression; throws on a bad expression. */
export function nameMatcher(term: string, regex: boolean): (name: string) => boolean {
  if (regex) {
    // The same guard as Exclude's: the search runs over every frame on the host's thread.
    return budgetedTest(safeRegex(term));
  }
  const lower = term.toLowerCase();
  return (s) => s.toLowerCase().includes(lower);
}

/**
 * The search box's answer over a tree: the weight under a match and its share, or why there is none (a bad or
 * refused pattern, or one over its time budget, said alike).
 */
export function searchShare(
  tree: CallTree,
  frames: readonly Frame[],
  term: string,
  regex: boolean,
): { samples: number; fraction: number; error?: string } {
  try {
    const samples = matchedWeight(tree, frames, nameMatcher(term, regex));
    return { samples, fraction: tree.weight > 0 ? samples / tree.weight : 0 };
  } catch (e) {
    return { samples: 0, fraction: 0, error: (e as Error).message };
  }
}
