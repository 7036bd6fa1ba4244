import { CallTree, diffFunctions, diffTree, functionKey, type DiffTree, type Frame, type FunctionChange, type Profile } from '../model';
import { pruneTree, SMALL_FRAMES, type CompactTree } from '../model/prune';
import { searchShare } from '../model/search';
import type { DiffChangeInfo, DiffSide, HostMessage, SizeBy } from './protocol';
import { frameInfos } from './viewerSession';

/** How many rows of changes the viewer lists; the rest are too small to matter. */
const MAX_CHANGES = 200;

/** A copy of `tree`'s shape with other self weights: node ids stay the same (children come after parents). */
export function reweigh(tree: CallTree, self: ArrayLike<number>): CallTree {
  const out = new CallTree(Math.max(16, tree.count));
  for (let i = 1; i < tree.count; i++) out.child(tree.parent[i], tree.frame[i]);
  for (let i = 0; i < tree.count; i++) if (self[i]) out.addSelf(i, self[i]);
  return out;
}

/**
 * Per entry of a compact tree of the differential tree, the total share of each profile. A merged
 * "small frames" entry gets the sum over the children it stands for: the ones not drawn beside it.
 */
export function sideTotals(data: CompactTree, sized: CallTree, other: Float64Array, smallerThan?: number): number[] {
  const out: number[] = new Array(data.node.length);
  const kept = new Map<number, Set<number>>();
  for (let i = 1; i < data.node.length; i++) {
    if (data.frame[i] === SMALL_FRAMES) continue;
    const p = data.parent[i];
    let s = kept.get(p);
    if (!s) kept.set(p, (s = new Set()));
    s.add(data.node[i]);
  }
  const total = sized.total;
  for (let i = 0; i < data.node.length; i++) {
    const n = data.node[i];
    if (data.frame[i] !== SMALL_FRAMES) {
      out[i] = other[n];
      continue;
    }
    const kids = sized.children(n).filter((c) => total[c] > 0);
    const merged =
      i === 0 && smallerThan !== undefined
        ? kids.filter((c) => total[c] < smallerThan)
        : kids.filter((c) => !kept.get(data.parent[i])?.has(c));
    out[i] = merged.reduce((sum, c) => sum + other[c], 0);
  }
  return out;
}

/** Bytes, time and objects say how much more there is; sample counts of two runs of different length do not. */
function grows(sides: { before: DiffSide; after: DiffSide }): boolean {
  const u = sides.before.unit ?? 'samples';
  return u !== 'samples' && u === (sides.after.unit ?? 'samples');
}

/** The table's rows: `diffFunctions` order, each with a graph frame of the same function to open. */
export function changeRows(changes: FunctionChange[], frames: readonly Frame[], max = MAX_CHANGES, withGrowth = false): DiffChangeInfo[] {
  const byKey = new Map<string, number>();
  frames.forEach((f, i) => {
    const k = functionKey(f);
    if (!byKey.has(k)) byKey.set(k, i);
  });
  return changes.slice(0, max).map((c) => ({
    name: c.name,
    file: c.file,
    line: c.line,
    category: c.category,
    before: c.before,
    after: c.after,
    delta: c.delta,
    ownDelta: c.afterOwn - c.beforeOwn,
    ...(withGrowth ? { growth: c.afterValue - c.beforeValue } : {}),
    frame: byKey.get(functionKey({ name: c.name, file: c.file, line: c.line, column: 0, category: c.category })) ?? -1,
  }));
}

/** What the comparison viewer answers: the differential tree sized by either profile, its subtrees, search. */
export class DiffSession {
  readonly diff: DiffTree;
  readonly changes: FunctionChange[];
  private readonly trees: Record<SizeBy, CallTree>;
  private readonly totals: Record<SizeBy, Float64Array>;

  constructor(
    readonly before: Profile,
    readonly after: Profile,
    readonly sides: { before: DiffSide; after: DiffSide },
  ) {
    this.diff = diffTree(before, after);
    this.changes = diffFunctions(before, after);
    const afterTree = this.diff.tree;
    this.trees = { after: afterTree, before: reweigh(afterTree, this.diff.beforeSelf) };
    this.totals = { after: afterTree.total, before: this.diff.beforeTotal };
  }

  frame(id: number): Frame | undefined {
    return this.diff.frames[id];
  }

  init(strings: Record<string, string>): HostMessage {
    return {
      type: 'init',
      kind: 'diff',
      before: this.sides.before,
      after: this.sides.after,
      changes: changeRows(this.changes, this.diff.frames, MAX_CHANGES, grows(this.sides)),
      strings,
    };
  }

  tree(sizeBy: SizeBy, expand?: { node: number; small: boolean; minWeight: number }): HostMessage {
    const t0 = performance.now();
    const sized = this.trees[sizeBy];
    const smallerThan = expand?.small ? expand.minWeight : undefined;
    const data = pruneTree(sized, expand ? { root: expand.node, smallerThan } : {});
    return {
      type: 'diffTree',
      sizeBy,
      data,
      before: sideTotals(data, sized, this.totals.before, smallerThan),
      after: sideTotals(data, sized, this.totals.after, smallerThan),
      frames: frameInfos(this.diff.frames, data),
      expand: expand ? { node: expand.node, small: expand.small } : undefined,
      hostMs: performance.now() - t0,
    };
  }

  search(sizeBy: SizeBy, term: string, regex: boolean): HostMessage {
    return { type: 'search', term, ...searchShare(this.trees[sizeBy], this.diff.frames, term, regex) };
  }
}
