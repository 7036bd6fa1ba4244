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
 * Walks the tree from its roots (nodes without a parent among the nodes), calling `place` with each node and its
 * parent's model node; returns undefined when there is no root. A cycle, or a node twice, is walked once.
 */
export function placeCpuTree<N extends CpuTreeNode>(nodes: N[], place: (n: N, parentModel: number) => number): PlacedTree | undefined {
  let max = 0;
  let dense = true;
  for (const n of nodes) {
    if (!Number.isSafeInteger(n.id) || n.id < 0) dense = false;
    else if (n.id > max) max = n.id;
  }
  return dense && max <= 4 * nodes.length + 65536 ? denseWalk(nodes, max + 1, place) : mapWalk(nodes, place);
}

function denseWalk<N extends CpuTreeNode>(nodes: N[], size: number, place: (n: N, parentModel: number) => number): PlacedTree | undefined {
  const at = new Int32Array(size).fill(-1);
  for (let i = 0; i < nodes.length; i++) at[nodes[i].id] = i;
  const isNode = (x: number): boolean => Number.isInteger(x) && x >= 0 && x < size && at[x] >= 0;
  // The last link set wins; children are listed in the order a node was first linked (the Map walk's order).
  const parent = new Int32Array(size).fill(-1);
  const linked = new Uint8Array(size);
  const order: number[] = [];
  const link = (c: number, par: number): void => {
    if (!linked[c]) {
      linked[c] = 1;
      order.push(c);
    }
    parent[c] = isNode(par) ? par : -1;
  };
  for (const n of nodes) {
    if (typeof n.parent === 'number') link(n.id, n.parent);
    for (const c of n.children ?? []) if (isNode(c)) link(c, n.id);
  }
  const start = new Int32Array(size + 1);
  for (const c of order) if (parent[c] >= 0) start[parent[c] + 1]++;
  for (let i = 0; i < size; i++) start[i + 1] += start[i];
  const fill = start.slice(0, size);
  const kid = new Int32Array(order.length);
  for (const c of order) if (parent[c] >= 0) kid[fill[parent[c]]++] = c;

  const modelOf = new Int32Array(size).fill(-1);
  const queue = new Int32Array(nodes.length + order.length);
  let qn = 0;
  for (const n of nodes) if (parent[n.id] < 0) queue[qn++] = n.id;
  if (qn === 0) return undefined;
  for (let qi = 0; qi < qn; qi++) {
    const id = queue[qi];
    if (modelOf[id] >= 0) continue;
    const par = parent[id];
    modelOf[id] = place(nodes[at[id]], par >= 0 && modelOf[par] >= 0 ? modelOf[par] : 0);
    for (let k = start[id]; k < start[id + 1]; k++) queue[qn++] = kid[k];
  }
  return { modelOf: (id) => (Number.isInteger(id) && id >= 0 && id < size ? modelOf[id] : -1), dense: modelOf };
}

function mapWalk<N extends CpuTreeNode>(nodes: N[], place: (n: N, parentModel: number) => number): PlacedTree | undefined {
  const byId = new Map<number, N>();
  for (const n of nodes) byId.set(n.id, n);
  const parentOf = new Map<number, number>();
  for (const n of nodes) {
    if (typeof n.parent === 'number') parentOf.set(n.id, n.parent);
    for (const c of n.children ?? []) if (byId.has(c)) parentOf.set(c, n.id);
  }
  const modelNode = new Map<number, number>();
  const kids = new Map<number, number[]>();
  for (const [c, par] of parentOf) {
    let k = kids.get(par);
    if (!k) kids.set(par, (k = []));
    k.push(c);
  }
  const queue: number[] = nodes.filter((n) => !parentOf.has(n.id) || !byId.has(parentOf.get(n.id)!)).map((n) => n.id);
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
