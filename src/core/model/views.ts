import { CallTree } from './callTree';
import { Category, CATEGORIES, Frame } from './frame';
import { Profile } from './profile';

/**
 * Bottom-up (heavy) tree: each root child is a leaf function, its children are its callers.
 * Weights are the self weight of the samples whose leaf it is, so a root child's total is the
 * function's self weight, and a path's total is how much of it came through that call chain.
 * Its size is the sum of all stacks' depths, quadratic in a deep chain with weight all along it:
 * past `budget` frames the callers are cut at the depth that fits (their weight stays on the last kept).
 */
export function bottomUp(tree: CallTree, budget = Math.max(1 << 20, 16 * tree.count)): CallTree {
  const out = new CallTree(Math.max(16, tree.count));
  const levels = callerLevels(tree, budget);
  tree.forEachStack((stack, self, selfTime) => {
    let node = 0;
    const stop = Math.max(0, stack.length - levels);
    for (let i = stack.length - 1; i >= stop; i--) node = out.child(node, stack[i]);
    out.addSelf(node, self, selfTime);
  });
  return out;
}

/** The most caller levels per stack that keep a bottom-up tree of `tree` within `budget` frames. */
function callerLevels(tree: CallTree, budget: number): number {
  const d = tree.depths();
  const deep: number[] = [];
  let sum = 0;
  for (let i = 1; i < tree.count; i++) {
    if (!(tree.self[i] > 0)) continue;
    sum += d[i];
    deep.push(d[i]);
  }
  if (sum <= budget) return Infinity;
  let lo = 1;
  let hi = deep.reduce((m, x) => Math.max(m, x), 1);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    let s = 0;
    for (const x of deep) s += Math.min(x, mid);
    if (s <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface FunctionStat {
  frame: number;
  self: number;
  /** Weight of samples with this frame anywhere on the stack, each sample counted once (recursion). */
  total: number;
  selfTime: number;
  totalTime: number;
}

/**
 * Per-function totals across all call sites, with recursion counted once per sample. `frameMap` (no -1 in it), when
 * given, names each node's frame in `frameCount` other frames: the totals of the tree remapped through it (its nodes
 * for one new frame under one parent merged), without making that tree.
 */
export function functionStats(tree: CallTree, frameCount: number, frameMap?: Int32Array): FunctionStat[] {
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  const selfTime = new Float64Array(frameCount);
  const totalTime = new Float64Array(frameCount);
  const tot = tree.total;
  const totT = tree.totalTime;
  // A node adds its total to its frame unless an ancestor already carries the same frame.
  const onPath = new Int32Array(frameCount);
  const walk = (root: number): void => {
    // Node and whether it is being left, as one number (2 × node + 1 when leaving): no pair made per node.
    const stack: number[] = [root * 2];
    while (stack.length) {
      const top = stack.pop()!;
      const node = top >>> 1;
      const f = frameMap && node > 0 ? frameMap[tree.frame[node]] : tree.frame[node];
      if (top & 1) {
        if (f >= 0) onPath[f]--;
        continue;
      }
      if (f >= 0) {
        self[f] += tree.self[node];
        selfTime[f] += tree.selfTime[node];
        if (onPath[f] === 0) {
          total[f] += tot[node];
          totalTime[f] += totT[node];
        }
        onPath[f]++;
      }
      stack.push(node * 2 + 1);
      for (let c = tree.firstChild(node); c !== -1; c = tree.nextSibling(c)) stack.push(c * 2);
    }
  };
  walk(0);
  const out: FunctionStat[] = [];
  for (let f = 0; f < frameCount; f++) {
    if (total[f] > 0 || self[f] > 0) out.push({ frame: f, self: self[f], total: total[f], selfTime: selfTime[f], totalTime: totalTime[f] });
  }
  return out;
}

export type CategorySummary = Record<Category, number>;

/**
 * Self weight per category (leaf frame's category); the root's own weight counts as unaccounted. Code that
 * runs under a garbage-collector frame (perf's `Heap::Scavenge` calling into V8's C++) is GC time: one GC
 * figure, the one the GC finding gives.
 */
export function categoryWeights(profile: Profile): CategorySummary {
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as CategorySummary;
  const t = profile.tree;
  // Parents come before children in id order: one pass sees every node's ancestors first.
  const inGc = new Uint8Array(t.count);
  for (let i = 0; i < t.count; i++) {
    const f = t.frame[i];
    const frame: Frame | undefined = f >= 0 ? profile.frames[f] : undefined;
    inGc[i] = (i > 0 && inGc[t.parent[i]]) || frame?.category === 'gc' ? 1 : 0;
    if (!t.self[i]) continue;
    out[inGc[i] ? 'gc' : frame ? frame.category : 'unaccounted'] += t.self[i];
  }
  return out;
}

/** The tick processor's [Summary] groups, from our categories. */
export function tickSummary(c: CategorySummary): {
  javascript: number;
  cpp: number;
  gc: number;
  sharedLibraries: number;
  unaccounted: number;
  other: number;
} {
  return {
    javascript: c.app + c.dependency + c.node + c.v8 + c.eval + c.wasm,
    cpp: c.native,
    gc: c.gc,
    sharedLibraries: c['shared-lib'],
    unaccounted: c.unaccounted,
    other: c.kernel + c.idle + c.program,
  };
}

/** Share of weight whose leaf resolved to a name (not unaccounted). */
export function attributed(profile: Profile): number {
  const c = categoryWeights(profile);
  const all = profile.tree.weight;
  return all > 0 ? 1 - c.unaccounted / all : 0;
}
