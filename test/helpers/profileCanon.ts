// What two reads of the same bytes must agree on, free of node and frame ids.
import type { Frame, Profile } from '../../src/core/model';

/** A frame by what it says. The tier is part of it: without it two tiers' rows of one function are one key, and a Map keeps whichever it met last. */
export const frameKey = (f: Frame): string => `${f.name}|${f.file}|${f.line}|${f.column}|${f.category}|${f.tier ?? ''}`;

/** A stack as its frames' keys, root first. */
export function stackPath(p: Profile, frames: readonly number[]): string {
  return frames.map((f) => frameKey(p.frames[f])).join(';');
}

/** Self weight by stack path. */
export function stackWeights(p: Profile): Map<string, number> {
  const stacks = new Map<string, number>();
  p.tree.forEachStack((stack, self) => {
    if (!self) return;
    const k = stackPath(p, stack);
    stacks.set(k, (stacks.get(k) ?? 0) + self);
  });
  return stacks;
}
