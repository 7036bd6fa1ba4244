import { CallTree } from './callTree';
import { FrameTable, type Frame } from './frame';
import type { Profile } from './profile';

export interface ViewOptions {
  /** Fold Node.js core frames (`node:*`, `internal/*`) into their caller. */
  hideNodeInternals?: boolean;
  /** Show each run of one npm package's frames as a single box named after the package. */
  collapseDependencies?: boolean;
  /**
   * `function` merges the frames of one function that differ only in V8 tier or column (one box per
   * function); `line` keeps every position the importer recorded apart.
   */
  mergeBy?: 'function' | 'line';
}

/** A profile's tree seen through view options; frame ids index `frames`, not the profile's. */
export interface ProfileView {
  frames: Frame[];
  tree: CallTree;
  /** Profile frame id → view frame id (-1: folded away). */
  frameMap: Int32Array;
}

/** Rewrites the call tree for the toggles; the profile itself is left untouched. */
export function applyViewOptions(profile: Profile, opts: ViewOptions): ProfileView {
  const table = new FrameTable();
  const frameMap = new Int32Array(profile.frames.length);
  const byFunction = (opts.mergeBy ?? 'function') === 'function';
  const packageFrames = new Set<number>();
  profile.frames.forEach((f, id) => {
    if (opts.hideNodeInternals && f.category === 'node') {
      frameMap[id] = -1;
      return;
    }
    if (opts.collapseDependencies && f.category === 'dependency' && f.pkg) {
      const v = table.intern({ name: f.pkg, file: '', line: 0, column: 0, category: 'dependency', pkg: f.pkg });
      packageFrames.add(v);
      frameMap[id] = v;
      return;
    }
    // Interning drops duplicates: without tier and column two tiers of one function share an id.
    frameMap[id] = byFunction ? table.intern({ ...f, tier: undefined, column: f.line ? 0 : f.column, generated: f.generated }) : table.intern(f);
  });
  if (byFunction) {
    // Keep one column per function for navigation: the first one seen.
    profile.frames.forEach((f, id) => {
      const v = frameMap[id];
      if (v >= 0 && !packageFrames.has(v) && table.frames[v].column === 0 && f.column) table.frames[v] = { ...table.frames[v], column: f.column };
    });
  }
  const src = profile.tree;
  const out = new CallTree(Math.max(16, src.count));
  const nodeMap = new Int32Array(src.count);
  for (let i = 1; i < src.count; i++) {
    const p = nodeMap[src.parent[i]];
    const f = frameMap[src.frame[i]];
    // A package box calling into the same package stays one box.
    const fold = f < 0 || (packageFrames.has(f) && p > 0 && out.frame[p] === f);
    nodeMap[i] = fold ? p : out.child(p, f);
    if (src.self[i] || src.selfTime[i]) out.addSelf(nodeMap[i], src.self[i], src.selfTime[i]);
  }
  if (src.self[0] || src.selfTime[0]) out.addSelf(0, src.self[0], src.selfTime[0]);
  return { frames: table.frames, tree: out, frameMap };
}
