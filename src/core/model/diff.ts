import { CallTree } from './callTree';
import { Frame, FrameTable } from './frame';
import { Profile } from './profile';
import { functionStats } from './views';
import { isThreadLevel, threadLevelFrame, threadOfLevel } from './threadLevel';

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
  /** Total weight in each profile's own unit (bytes of a heap profile): what grew, not only its share. */
  beforeValue: number;
  afterValue: number;
}

/** Code the app runs (its own and its packages'), which owns the time of the builtins and C++ it calls. */
const JS = new Set<Frame['category']>(['app', 'dependency', 'node', 'eval', 'wasm']);

interface KeyTotals {
  frame: Frame;
  total: number;
  self: number;
  own: number;
  value: number;
}

function totalsByKey(p: Profile): Map<string, KeyTotals> {
  const all = p.tree.weight || 1;
  const out = new Map<string, KeyTotals>();
  // Several frames (tiers, call sites of one function) may share a key: sum self, keep the max total
  // (a sample can hold two tiers of one function only through recursion).
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    if (f.category === 'idle' || isThreadLevel(f)) continue;
    const k = functionKey(f);
    const e = out.get(k);
    if (e) {
      e.self += s.self / all;
      e.total = Math.min(1, e.total + s.total / all);
      e.value = Math.min(p.tree.weight, e.value + s.total);
    } else out.set(k, { frame: f, total: s.total / all, self: s.self / all, own: 0, value: s.total });
  }
  // Per node, the innermost JS frame on its stack (else its root-most frame), from its parent's: one
  // pass, where scanning each stack from its leaf is quadratic in a deep chain of native frames.
  const t = p.tree;
  const own = new Int32Array(t.count).fill(-1);
  for (let i = 1; i < t.count; i++) {
    const f = t.frame[i];
    own[i] = JS.has(p.frames[f].category) || t.parent[i] === 0 ? f : own[t.parent[i]];
    if (!(t.self[i] > 0)) continue;
    const e = out.get(functionKey(p.frames[own[i]]));
    if (e) e.own += t.self[i] / all;
  }
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
      beforeValue: x?.value ?? 0,
      afterValue: y?.value ?? 0,
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

/**
 * A thread level as two runs of one program share it: without the pid and OS thread id, which differ from run to run
 * (`thread pid 4242 thread 1 server.js` → `thread thread 1 server.js`), so the same thread is one tower, not one
 * removed and one added. Same-named processes of a run (cluster workers) share a level here.
 */
function threadLevelAcrossRuns(f: Frame): string {
  const thread = threadOfLevel(f);
  if (thread === undefined || !thread.startsWith('pid ')) return f.name;
  return threadLevelFrame(thread.replace(/^pid \d+ ?/, '').replace(/\btid \d+/, 'tid …')).name.trimEnd();
}

export function diffTree(before: Profile, after: Profile): DiffTree {
  const table = new FrameTable();
  const tree = new CallTree();
  const mapFrames = (p: Profile) =>
    p.frames.map((f) => table.intern({ ...f, name: threadLevelAcrossRuns(f), column: 0, tier: undefined, generated: undefined }));
  const add = (p: Profile, into: 'after' | 'before', beforeSelf: number[]) => {
    const ids = mapFrames(p);
    const t = p.tree;
    const all = t.weight || 1;
    const total = t.total;
    // Node by node (children come after their parents): adding each stack whole would take the sum of
    // all stacks' depths, quadratic in a deep chain. Stacks through idle are left out, as before.
    const node = new Int32Array(t.count).fill(-1);
    node[0] = 0;
    for (let i = 0; i < t.count; i++) {
      if (i > 0) {
        const up = node[t.parent[i]];
        if (up < 0 || !(total[i] > 0) || p.frames[t.frame[i]].category === 'idle') continue;
        node[i] = tree.child(up, ids[t.frame[i]]);
      }
      const self = t.self[i];
      if (!(self > 0)) continue;
      if (into === 'after') tree.addSelf(node[i], self / all);
      else beforeSelf[node[i]] = (beforeSelf[node[i]] ?? 0) + self / all;
    }
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
export function gateShares(
  c: FunctionChange,
  totals?: { before: number; after: number },
): { before: number; after: number; growth: number } {
  const js = JS.has(c.category);
  const before = js ? Math.max(c.beforeOwn, c.beforeSelf) : c.beforeSelf;
  const after = js ? Math.max(c.afterOwn, c.afterSelf) : c.afterSelf;
  let growth = after - before;
  const larger = totals ? Math.max(totals.before, totals.after) : 0;
  if (totals && larger > 0) growth = Math.min(growth, (after * totals.after - before * totals.before) / larger);
  return { before, after, growth };
}
