// What two reads of the same bytes must agree on, free of node and frame ids.
import { basename } from 'node:path';
import type { Frame, Profile } from '../../src/core/model';
import { functionStats } from '../../src/core/model/views';

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

/** Self weight by function (name, file's base name, line): what a live view and a final read of one run must share. */
export function selfByFunction(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    const key = `${f.name} ${f.file ? basename(f.file) : ''}:${f.line ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + s.self);
  }
  return out;
}

/** Keys whose weights differ between two views, with both weights. */
export function differences(a: Map<string, number>, b: Map<string, number>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => (a.get(k) ?? 0) !== (b.get(k) ?? 0)).map((k) => `${k}: ${a.get(k) ?? 0} vs ${b.get(k) ?? 0}`);
}
