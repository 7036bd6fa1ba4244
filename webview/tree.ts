import type { CompactTree, FrameInfo } from '../src/core/viewer/protocol';
import { fmt } from './dom';

/** Frame id of merged "small frames" entries (SMALL_FRAMES in core/model/prune). */
export const SMALL = -2;

/**
 * One drawn node, shared by the flame graph (d3-flame-graph reads `name`, `value`, `children`, and
 * keeps its zoom flags on it) and the tables. Field names avoid d3-flame-graph's short aliases (n, v, c, d, l).
 */
export interface FNode {
  name: string;
  /** Total weight (d3-flame-graph's value). */
  value: number;
  self: number;
  frame: number;
  /** Host call-tree node (for a merged entry: its parent's). */
  host: number;
  merged: number;
  /** Something below was merged away and can be asked for. */
  pruned: boolean;
  children?: FNode[];
  up?: FNode;
  depth: number;
  /** What the host said of the frame (none for the root and merged entries). */
  info?: FrameInfo;
}

export type Strings = Record<string, string>;

/** The frames the host sent a page, by id: each tree message carries only the ones new to the page. */
export class FrameTable {
  private readonly byId = new Map<number, FrameInfo>();

  add(frames: Record<string, FrameInfo>): void {
    for (const [id, f] of Object.entries(frames)) this.byId.set(Number(id), f);
  }

  get(frame: number): FrameInfo | undefined {
    return frame >= 0 ? this.byId.get(frame) : undefined;
  }

  categories(): Set<string> {
    return new Set([...this.byId.values()].map((f) => f.category));
  }
}

function displayName(frame: number, merged: number, s: Strings, f: FrameInfo | undefined): string {
  if (frame === SMALL) return fmt(s.smallFrames, merged);
  if (frame < 0) return s.root;
  if (!f) return '?';
  return frameLabel(f);
}

/** A frame's name as the views print it: an anonymous function only makes sense with where it is. */
export function frameLabel(f: FrameInfo): string {
  const name = f.name || '(anonymous)';
  if (/^\(?anonymous\)?$/.test(name) && f.file) {
    const base = f.file.split(/[\\/]/).pop();
    return `${name} ${base}${f.line ? `:${f.line}` : ''}`;
  }
  return name;
}

/** `each` sees every node with its index in `data` (the diff view attaches per-entry figures). */
export function buildNodes(
  data: CompactTree,
  s: Strings,
  frames: FrameTable,
  depth0 = 0,
  up?: FNode,
  each?: (n: FNode, i: number) => void,
): FNode {
  const nodes: FNode[] = new Array(data.node.length);
  for (let i = 0; i < data.node.length; i++) {
    const p = data.parent[i];
    const parent = p >= 0 ? nodes[p] : up;
    const info = frames.get(data.frame[i]);
    const n: FNode = {
      name: displayName(data.frame[i], data.merged[i], s, info),
      value: data.total[i],
      self: data.self[i],
      frame: data.frame[i],
      host: data.node[i],
      merged: data.merged[i],
      pruned: data.pruned[i] === 1 || data.merged[i] > 0,
      up: parent,
      depth: parent ? parent.depth + 1 : depth0,
      info,
    };
    nodes[i] = n;
    each?.(n, i);
    if (p >= 0) (nodes[p].children ??= []).push(n);
  }
  return nodes[0];
}

/** Replaces what `target` stood for with the detailed subtree the host sent for it. */
export function graft(target: FNode, sub: FNode): void {
  // The replaced children lose their parent, so a zoom kept on one of them is seen to be detached.
  for (const c of target.children ?? []) c.up = undefined;
  target.children = sub.children;
  for (const c of target.children ?? []) reparent(c, target);
  target.pruned = false;
}

/** Whether `n` still hangs under `root`: each step of its path is among its parent's children. */
export function attached(root: FNode, n: FNode): boolean {
  const path = pathOf(n);
  return path[0] === root && path.every((x, i) => i === 0 || !!path[i - 1].children?.includes(x));
}

/** What the host said a detail answer expands: a node, or the merged small frames under it. */
export interface ExpandTarget {
  node: number;
  small: boolean;
}

/**
 * The one expand step of the main viewer and the comparison: grafts the host's detail for `expand` into
 * `root` and returns the node to stay zoomed on. The user may have zoomed on while the detail was coming:
 * a zoom outside the replaced part stays; one inside it moves to the same call-tree node in the detail;
 * else the expanded node itself. Undefined when the target is gone.
 */
export function applyExpansion(root: FNode, expand: ExpandTarget, sub: FNode, zoomed: FNode | undefined): FNode | undefined {
  const target = findNode(root, (n) => n.host === expand.node && (expand.small ? n.frame === SMALL : n.frame !== SMALL) && n.pruned);
  if (!target) return undefined;
  graft(target, sub);
  if (!zoomed || attached(root, zoomed)) return zoomed ?? target;
  const small = zoomed.frame === SMALL;
  return findNode(target, (n) => n.host === zoomed.host && (n.frame === SMALL) === small) ?? target;
}

function reparent(n: FNode, up: FNode): void {
  n.up = up;
  n.depth = up.depth + 1;
  for (const c of n.children ?? []) reparent(c, n);
}

export function findNode(root: FNode, pred: (n: FNode) => boolean): FNode | undefined {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (pred(n)) return n;
    if (n.children) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return undefined;
}

export function pathOf(n: FNode): FNode[] {
  const out: FNode[] = [];
  for (let x: FNode | undefined = n; x; x = x.up) out.push(x);
  return out.reverse();
}
