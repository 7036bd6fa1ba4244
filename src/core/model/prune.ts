import type { CallTree } from './callTree';

/** Frame id the compact tree uses for a node standing in for several small sibling subtrees. */
export const SMALL_FRAMES = -2;

/**
 * A pruned copy of (part of) a call tree the viewer can draw: parallel arrays in pre-order, index 0 is
 * the subtree's root. Children lighter than a fraction of a pixel at the reference width are merged into
 * one `SMALL_FRAMES` node per parent, so what is sent stays a few thousand nodes whatever the profile.
 */
export interface CompactTree {
  /** Node id in the source tree of index 0. */
  root: number;
  /** Source tree node per entry; for a merged entry, the parent's node id. */
  node: number[];
  /** Index of the parent entry; -1 for index 0. */
  parent: number[];
  /** Frame id; -1 for the whole-profile root, `SMALL_FRAMES` for merged entries. */
  frame: number[];
  total: number[];
  self: number[];
  /** Merged entries: how many source nodes they stand for; others: 0. */
  merged: number[];
  /** 1 when something below this entry was merged away (zooming in asks for more detail). */
  pruned: number[];
  /** Weight of the whole source tree, so shares stay relative to all samples. */
  weight: number;
  /** Children lighter than this were merged. */
  minWeight: number;
}

export interface PruneOptions {
  /** Subtree to send (default: the whole tree). */
  root?: number;
  /** Keep children whose total is at least this share of the subtree root (default: 0.5 px of 1000 px). */
  minFraction?: number;
  /** Upper bound on entries; the threshold is raised until it fits (default 30 000). */
  maxNodes?: number;
  /** Nodes to keep whatever their weight (a revealed node and its ancestors). */
  keep?: Iterable<number>;
  /**
   * Only the children of `root` lighter than this, under one merged entry: what a merged
   * "small frames" entry stands for, brought back at detail relative to its own weight.
   */
  smallerThan?: number;
  /**
   * Levels below `root` that are sent (default DEPTH_WINDOW); deeper nodes are left for an expand
   * (their parent is marked `pruned`). Drawing tens of thousands of levels helps no one and costs the page.
   */
  maxDepth?: number;
}

/** How many levels of a call chain one tree message carries. */
export const DEPTH_WINDOW = 1000;

/** Number of nodes in each node's subtree (itself included). Children have higher ids than parents. */
export function subtreeSizes(tree: CallTree): Int32Array {
  const size = new Int32Array(tree.count).fill(1);
  for (let i = tree.count - 1; i > 0; i--) size[tree.parent[i]] += size[i];
  return size;
}

export function pruneTree(tree: CallTree, opts: PruneOptions = {}): CompactTree {
  const root = opts.root ?? 0;
  const maxNodes = opts.maxNodes ?? 30000;
  const keep = new Set(opts.keep ?? []);
  let fraction = opts.minFraction ?? 0.0005;
  const maxDepth = Math.max(1, Math.min(opts.maxDepth ?? DEPTH_WINDOW, maxNodes >> 2));
  const sizes = subtreeSizes(tree);
  for (;;) {
    // Past a fraction of 1 only the kept path is left to drop to: that last pass always fits, as the
    // depth window bounds it (and weights that are not finite would never fall below the threshold).
    const last = !(fraction <= 1);
    const out = pruneOnce(tree, root, fraction, keep, sizes, last ? Infinity : maxNodes, opts.smallerThan, maxDepth, last);
    if (out) return out;
    fraction = Math.max(fraction * 2, 1e-6);
  }
}

function pruneOnce(
  tree: CallTree,
  root: number,
  fraction: number,
  keep: Set<number>,
  sizes: Int32Array,
  maxNodes: number,
  smallerThan: number | undefined,
  maxDepth: number,
  onlyKept: boolean,
): CompactTree | undefined {
  const total = tree.total;
  let rootWeight = total[root];
  let smallKids: number[] | undefined;
  if (smallerThan !== undefined) {
    smallKids = tree.children(root).filter((c) => total[c] > 0 && total[c] < smallerThan);
    rootWeight = smallKids.reduce((s, c) => s + total[c], 0);
  }
  const minWeight = rootWeight * fraction;
  const out: CompactTree = {
    root,
    node: [],
    parent: [],
    frame: [],
    total: [],
    self: [],
    merged: [],
    pruned: [],
    weight: total[0],
    minWeight,
  };
  const push = (node: number, parent: number, frame: number, tot: number, self: number, merged: number): number => {
    out.node.push(node);
    out.parent.push(parent);
    out.frame.push(frame);
    out.total.push(tot);
    out.self.push(self);
    out.merged.push(merged);
    out.pruned.push(0);
    return out.node.length - 1;
  };
  // Explicit stack: recursion depth follows stack depth, which can exceed the JS call stack. A negative
  // `node` entry is the merged small-frames child of `parentIndex`, queued so it lands after its siblings.
  const stack: Array<[node: number, parentIndex: number, weight: number, count: number, depth: number]> = [];
  if (smallKids) {
    push(
      root,
      -1,
      SMALL_FRAMES,
      rootWeight,
      0,
      smallKids.reduce((s, c) => s + sizes[c], 0),
    );
    smallKids.sort((a, b) => total[a] - total[b]);
    for (const c of smallKids) stack.push([c, 0, 0, 0, 1]);
  } else stack.push([root, -1, 0, 0, 0]);
  while (stack.length) {
    const [node, parentIndex, weight, count, depth] = stack.pop()!;
    if (node < 0) {
      push(out.node[parentIndex], parentIndex, SMALL_FRAMES, weight, weight, count);
      for (let p = parentIndex; p !== -1 && !out.pruned[p]; p = out.parent[p]) out.pruned[p] = 1;
      continue;
    }
    const index = push(node, parentIndex, tree.frame[node], total[node], tree.self[node], 0);
    if (out.node.length > maxNodes) return undefined;
    if (depth >= maxDepth) {
      // The bottom of the window: what is below comes with an expand of this node.
      if (tree.children(node).some((c) => total[c] > 0))
        for (let p = index; p !== -1 && !out.pruned[p]; p = out.parent[p]) out.pruned[p] = 1;
      continue;
    }
    let smallWeight = 0;
    let smallCount = 0;
    const kids = tree.children(node);
    // Heaviest first so the pre-order reads like the graph; pushed in reverse for the stack.
    kids.sort((a, b) => total[b] - total[a]);
    const kept: number[] = [];
    for (const c of kids) {
      if (total[c] <= 0) continue;
      if (keep.has(c) || (!onlyKept && total[c] >= minWeight)) kept.push(c);
      else {
        smallWeight += total[c];
        smallCount += sizes[c];
      }
    }
    if (smallCount > 0) stack.push([-1, index, smallWeight, smallCount, depth + 1]);
    for (let i = kept.length - 1; i >= 0; i--) stack.push([kept[i], index, 0, 0, depth + 1]);
  }
  return out;
}

/** The heaviest node whose frame is `frame`, or -1. */
export function heaviestNodeOf(tree: CallTree, frame: number): number {
  const total = tree.total;
  let best = -1;
  for (let i = 1; i < tree.count; i++) {
    if (tree.frame[i] === frame && (best < 0 || total[i] > total[best])) best = i;
  }
  return best;
}

/**
 * Where a tree that reveals `node` starts: the root, or for a node deeper than the depth window an
 * ancestor that puts it mid-window (the whole path would not fit in one message).
 */
export function windowRootFor(tree: CallTree, node: number, window = DEPTH_WINDOW): number {
  const path = pathTo(tree, node);
  return path.length <= window ? 0 : path[path.length - 1 - (window >> 1)];
}

/** The node and its ancestors up to the root, root first. */
export function pathTo(tree: CallTree, node: number): number[] {
  const out: number[] = [];
  for (let n = node; n >= 0; n = tree.parent[n]) out.push(n);
  return out.reverse();
}
