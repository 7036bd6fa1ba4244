import { CallTree } from './callTree';
import { Frame, FrameTable } from './frame';
import { Profile } from './profile';
import { functionStats } from './views';

/** Identity of a function across two profiles: code addresses and frame ids differ between runs. */
export function functionKey(f: Frame): string {
  return `${f.name}\0${f.file}\0${f.file ? f.line : 0}`;
}

export interface FunctionChange {
  name: string;
  file: string;
  line: number;
  category: Frame['category'];
  /** Total share (0..1) of each profile's samples with this function on the stack. */
  before: number;
  after: number;
  delta: number;
  beforeSelf: number;
  afterSelf: number;
  /** Share where this was the innermost JavaScript function: its self plus the native code it called. */
  beforeOwn: number;
  afterOwn: number;
}

const JS = new Set<Frame['category']>(['app', 'dependency', 'node']);


interface KeyTotals {
  frame: Frame;
  total: number;
  self: number;
  own: number;
}

function totalsByKey(p: Profile): Map<string, KeyTotals> {
  const all = p.tree.weight || 1;
  const out = new Map<string, KeyTotals>();
  // Several frames (tiers, call sites of one function) may share a key: sum self, keep the max total
  // (a sample can hold two tiers of one function only through recursion).
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    if (f.category === 'idle' || (f.category === 'program' && f.name.startsWith('thread '))) continue;
    const k = functionKey(f);
    const e = out.get(k);
    if (e) {
      e.self += s.self / all;
      e.total = Math.min(1, e.total + s.total / all);
    } else out.set(k, { frame: f, total: s.total / all, self: s.self / all, own: 0 });
  }
  p.tree.forEachStack((stack, self) => {
    let i = stack.length - 1;
    while (i > 0 && !JS.has(p.frames[stack[i]].category)) i--;
    const e = i >= 0 ? out.get(functionKey(p.frames[stack[i]])) : undefined;
    if (e) e.own += self / all;
  });
  return out;
}

/**
 * Functions whose share of all samples changed (idle is not a function and is left out). Ordered by the change in own share first:
 * every caller of a function that got cheaper drops by as much in total, and the one to name is the
 * function where the time was spent; |delta| of total orders the rest.
 */
export function diffFunctions(before: Profile, after: Profile): FunctionChange[] {
  const b = totalsByKey(before);
  const a = totalsByKey(after);
  const keys = new Set([...b.keys(), ...a.keys()]);
  const out: FunctionChange[] = [];
  for (const k of keys) {
    const x = b.get(k);
    const y = a.get(k);
    const f = (y ?? x)!.frame;
    const bt = x?.total ?? 0;
    const at = y?.total ?? 0;
    out.push({
      name: f.name,
      file: f.file,
      line: f.line,
      category: f.category,
      before: bt,
      after: at,
      delta: at - bt,
      beforeSelf: x?.self ?? 0,
      afterSelf: y?.self ?? 0,
      beforeOwn: x?.own ?? 0,
      afterOwn: y?.own ?? 0,
    });
  }
  const ownDelta = (c: FunctionChange) => Math.abs(c.afterOwn - c.beforeOwn);
  out.sort((p, q) => ownDelta(q) - ownDelta(p) || Math.abs(q.delta) - Math.abs(p.delta) || q.after - p.after || (p.name < q.name ? -1 : 1));
  return out;
}

/**
 * A merged call tree of both profiles for the differential flame graph: `tree.self` holds the
 * after-profile's self share, `beforeSelf` the before-profile's, per node; widths come
 * from the after profile and colour from after − before.
 */
export interface DiffTree {
  frames: Frame[];
  tree: CallTree;
  beforeSelf: Float64Array;
  beforeTotal: Float64Array;
}

export function diffTree(before: Profile, after: Profile): DiffTree {
  const table = new FrameTable();
  const tree = new CallTree();
  const mapFrames = (p: Profile) => p.frames.map((f) => table.intern({ ...f, column: 0, tier: undefined, generated: undefined }));
  const add = (p: Profile, into: 'after' | 'before', beforeSelf: number[]) => {
    const ids = mapFrames(p);
    const all = p.tree.weight || 1;
    p.tree.forEachStack((stack, self) => {
      if (stack.some((f) => p.frames[f].category === 'idle')) return;
      const node = tree.addStack(
        stack.map((f) => ids[f]),
        0,
      );
      if (into === 'after') tree.addSelf(node, self / all);
      else beforeSelf[node] = (beforeSelf[node] ?? 0) + self / all;
    });
  };
  const bs: number[] = [];
  add(after, 'after', bs);
  add(before, 'before', bs);
  const beforeSelf = new Float64Array(tree.count);
  for (let i = 0; i < bs.length; i++) beforeSelf[i] = bs[i] ?? 0;
  const beforeTotal = new Float64Array(beforeSelf);
  for (let i = tree.count - 1; i > 0; i--) beforeTotal[tree.parent[i]] += beforeTotal[i];
  return { frames: table.frames, tree, beforeSelf, beforeTotal };
}

/**
 * How much a function's self share grew, as the CI gate reads it. The share is, for a JavaScript function,
 * its own share (its self plus the native code it called, where a `--prof` or perf profile puts the time
 * of `pbkdf2Sync`), for native code its self. Given both profiles' total weights (when they count the same
 * thing), growth is also measured against the larger run, and the smaller of the two counts: when a change
 * makes the rest of a run cheaper, its unchanged start-up takes a larger share without growing.
 */
export function gateShares(c: FunctionChange, totals?: { before: number; after: number }): { before: number; after: number; growth: number } {
  const js = JS.has(c.category);
  const before = js ? Math.max(c.beforeOwn, c.beforeSelf) : c.beforeSelf;
  const after = js ? Math.max(c.afterOwn, c.afterSelf) : c.afterSelf;
  let growth = after - before;
  const larger = totals ? Math.max(totals.before, totals.after) : 0;
  if (totals && larger > 0) growth = Math.min(growth, (after * totals.after - before * totals.before) / larger);
  return { before, after, growth };
}
