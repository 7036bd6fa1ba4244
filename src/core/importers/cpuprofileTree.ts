// A .cpuprofile's call tree comes as nodes linked by id (`children`, or `parent` in older Chrome exports). This walks
// it parents first, placing each node in the model; V8 numbers nodes densely from 1, so the links go in typed arrays
// there, and in Maps for any other numbering. Both give the same walk: the same roots, children in the same order.

export interface CpuTreeNode {
  id: number;
  children?: number[];
  parent?: number;
}

/** The model node of each profile node, by id; -1 for an id no walk reached. `dense` is the same as an array. */
export interface PlacedTree {
  modelOf(id: number): number;
  dense: Int32Array | undefined;
}

/**
 * The links of a profile's nodes in arrays, node by node (index i): its id, its `parent` (NaN for none) and its
 * `children`, those of node i at children[childStart[i] .. childStart[i + 1]). Read from arrays, a walk of 100k nodes
 * does not go back to 100k objects spread over the heap, pass after pass.
 */
export interface CpuTreeArrays {
  readonly count: number;
  readonly ids: ArrayLike<number>;
  readonly parents: ArrayLike<number>;
  readonly childStart: ArrayLike<number>;
  readonly children: ArrayLike<number>;
}

/** The links of `nodes` as arrays; a `parent` that is no number is none, `children` that are no array none. */
export function treeArraysOf(nodes: CpuTreeNode[]): CpuTreeArrays {
  const ids: number[] = [];
  const parents: number[] = [];
  const childStart: number[] = [0];
  const children: number[] = [];
  for (const n of nodes) {
    ids.push(n.id);
    parents.push(typeof n.parent === 'number' ? n.parent : NaN);
    if (Array.isArray(n.children)) for (const c of n.children) children.push(c);
    childStart.push(children.length);
  }
  return { count: nodes.length, ids, parents, childStart, children };
}

/**
 * Walks the tree from its roots (nodes without a parent among the nodes), calling `place` with each node and its
 * parent's model node; returns undefined when there is no root. A cycle, or a node twice, is walked once.
 */
export function placeCpuTree<N extends CpuTreeNode>(nodes: N[], place: (n: N, parentModel: number) => number): PlacedTree | undefined {
  return placeCpuTreeArrays(treeArraysOf(nodes), (i, parentModel) => place(nodes[i], parentModel));
}

/**
 * A dense walk before it places anything: node ids in walk order (`queue[0 .. qn)`, parents first, a node reached twice
 * there twice), each id's parent id (-1 for a root) and index (`at`).
 */
export interface WalkOrder {
  queue: Int32Array;
  qn: number;
  parent: Int32Array;
  at: Int32Array;
}

/**
 * placeCpuTree over the nodes' links in arrays; `place` gets the node's index. `before` sees the walk's order first
 * (dense numbering only, as V8 writes).
 */
export function placeCpuTreeArrays(
  t: CpuTreeArrays,
  place: (i: number, parentModel: number) => number,
  before?: (w: WalkOrder) => void,
): PlacedTree | undefined {
  let max = 0;
  let dense = true;
  const ids = t.ids;
  for (let i = 0; i < t.count; i++) {
    const id = ids[i];
    if (!Number.isSafeInteger(id) || id < 0) dense = false;
    else if (id > max) max = id;
  }
  return dense && max <= 4 * t.count + 65536 ? denseWalk(t, max + 1, place, before) : mapWalk(t, place);
}

// The dense walk's passes are functions of their own: each runs once over 100k nodes, and in one big function V8
// optimized a pass, left it at the loop's end for want of type feedback on the next, and ran that one interpreted again.
// `place` is called from a loop of its own too: each profile's is another closure, and where V8 had inlined the first
// one, the next profile's threw the walk's optimized code away (a 2-process trace compiled the walk four times).
function denseWalk(
  t: CpuTreeArrays,
  size: number,
  place: (i: number, parentModel: number) => number,
  before?: (w: WalkOrder) => void,
): PlacedTree | undefined {
  const { count, ids } = t;
  const at = new Int32Array(size).fill(-1);
  for (let i = 0; i < count; i++) at[ids[i]] = i;
  // The last link set wins; children are listed in the order a node was first linked (the Map walk's order).
  const parent = new Int32Array(size).fill(-1);
  // Each id is linked once at most: `order` fits in `size`.
  const order = new Int32Array(size);
  const on = linkAll(t, at, parent, order);
  const { start, kid } = childLists(order, on, parent, size);
  const queue = new Int32Array(count + on);
  const qn = walkOrder(ids, count, parent, start, kid, queue);
  if (qn === 0) return undefined;
  before?.({ queue, qn, parent, at });
  const modelOf = new Int32Array(size).fill(-1);
  placeInOrder(queue, qn, at, parent, modelOf, place);
  return { modelOf: (id) => (Number.isInteger(id) && id >= 0 && id < size ? modelOf[id] : -1), dense: modelOf };
}

/** The roots' ids, then each node's children after it, into `queue` (a node reached twice is there twice): the count. */
function walkOrder(
  ids: ArrayLike<number>,
  count: number,
  parent: Int32Array,
  start: Int32Array,
  kid: Int32Array,
  queue: Int32Array,
): number {
  let qn = 0;
  for (let i = 0; i < count; i++) if (parent[ids[i]] < 0) queue[qn++] = ids[i];
  if (qn === 0) return 0;
  const seen = new Uint8Array(parent.length);
  for (let qi = 0; qi < qn; qi++) {
    const id = queue[qi];
    if (seen[id]) continue;
    seen[id] = 1;
    for (let k = start[id]; k < start[id + 1]; k++) queue[qn++] = kid[k];
  }
  return qn;
}

/** Places the queue's nodes in turn, each under its parent's model node (0 for a root), a node reached twice once. */
function placeInOrder(
  queue: Int32Array,
  qn: number,
  at: Int32Array,
  parent: Int32Array,
  modelOf: Int32Array,
  place: (i: number, parentModel: number) => number,
): void {
  for (let qi = 0; qi < qn; qi++) {
    const id = queue[qi];
    if (modelOf[id] >= 0) continue;
    const par = parent[id];
    modelOf[id] = place(at[id], par >= 0 && modelOf[par] >= 0 ? modelOf[par] : 0);
  }
}

/** `x` is the id of a node of the dense walk (at[x] its index). A function of its own: a closure per walk, inlined into
 * the first walk's optimized linkAll, was another call target for the next profile's walk, which threw that code away. */
function isNode(x: number, at: Int32Array): boolean {
  return Number.isInteger(x) && x >= 0 && x < at.length && at[x] >= 0;
}

/** Sets each node's parent from the `parent` and `children` links; `order` gets the ids in the order first linked. */
function linkAll(t: CpuTreeArrays, at: Int32Array, parent: Int32Array, order: Int32Array): number {
  const { count, ids, parents, childStart, children } = t;
  const linked = new Uint8Array(at.length);
  let on = 0;
  for (let i = 0; i < count; i++) {
    const id = ids[i];
    const par = parents[i];
    if (par === par) {
      if (!linked[id]) {
        linked[id] = 1;
        order[on++] = id;
      }
      parent[id] = isNode(par, at) ? par : -1;
    }
    const end = childStart[i + 1];
    for (let k = childStart[i]; k < end; k++) {
      const c = children[k];
      if (!isNode(c, at)) continue;
      if (!linked[c]) {
        linked[c] = 1;
        order[on++] = c;
      }
      // isNode(id) holds: every id is a node here.
      parent[c] = id;
    }
  }
  return on;
}

/** Each node's children, in link order: those of `id` are kid[start[id] .. start[id + 1]). */
function childLists(order: Int32Array, on: number, parent: Int32Array, size: number): { start: Int32Array; kid: Int32Array } {
  const start = new Int32Array(size + 1);
  for (let o = 0; o < on; o++) if (parent[order[o]] >= 0) start[parent[order[o]] + 1]++;
  for (let i = 0; i < size; i++) start[i + 1] += start[i];
  const fill = start.slice(0, size);
  const kid = new Int32Array(on);
  for (let o = 0; o < on; o++) {
    const c = order[o];
    if (parent[c] >= 0) kid[fill[parent[c]]++] = c;
  }
  return { start, kid };
}

function mapWalk(t: CpuTreeArrays, place: (i: number, parentModel: number) => number): PlacedTree | undefined {
  const { count, ids, parents, childStart, children } = t;
  // The index of the last node of each id (the one a walk places).
  const byId = new Map<number, number>();
  for (let i = 0; i < count; i++) byId.set(ids[i], i);
  const parentOf = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const par = parents[i];
    if (par === par) parentOf.set(ids[i], par);
    for (let k = childStart[i]; k < childStart[i + 1]; k++) if (byId.has(children[k])) parentOf.set(children[k], ids[i]);
  }
  const modelNode = new Map<number, number>();
  const kids = new Map<number, number[]>();
  for (const [c, par] of parentOf) {
    let k = kids.get(par);
    if (!k) kids.set(par, (k = []));
    k.push(c);
  }
  const queue: number[] = [];
  for (let i = 0; i < count; i++) if (!parentOf.has(ids[i]) || !byId.has(parentOf.get(ids[i])!)) queue.push(ids[i]);
  if (queue.length === 0) return undefined;
  for (let qi = 0; qi < queue.length; qi++) {
    const id = queue[qi];
    if (modelNode.has(id)) continue;
    const par = parentOf.get(id);
    modelNode.set(id, place(byId.get(id)!, par !== undefined && modelNode.has(par) ? modelNode.get(par)! : 0));
    for (const c of kids.get(id) ?? []) queue.push(c);
  }
  return { modelOf: (id) => modelNode.get(id) ?? -1, dense: undefined };
}
