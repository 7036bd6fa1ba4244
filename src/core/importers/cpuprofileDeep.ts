import type { WalkOrder } from './cpuprofileTree';
import { V8_MAX_FRAMES } from './deepStacks';

/** The subtrees of a .cpuprofile that hold stacks cut at V8's depth limit, and what they weigh. */
export interface CutSubtrees {
  /** 1 for each node (by index) that is a root's child only because the stack above it was cut. */
  cut: Uint8Array;
  samples: number;
  /** The node (by index) where the most cut samples start, and their count. */
  top: number;
  topSamples: number;
}

/**
 * How deep a cut stack's samples can lie at least: V8 keeps 255 frames of it, but the profile leaves out frames of code
 * it has no entry for (a recursion 400 deep: samples of the cut subtree at 254 and 255 besides 256).
 */
const CUT_SHALLOWEST = V8_MAX_FRAMES >> 1;

/**
 * V8 samples at most 255 frames above the pc: a deeper stack comes as its innermost frames hung from `(root)`, and
 * the frame where the cut fell reads as if nothing called it. A child of a root with a sample 256 frames deep or more
 * and none nearer to it than 128 is such a cut. A real entry (the main module, a timer's callback) has samples nearer
 * to it, and reaches past 256 through inlined frames only (tsc: 341 deep under the main module, whose shallowest
 * sample is 2 deep; its 11 cut samples 337–357 deep under Module._load and checker functions). Undefined where none
 * is. Samples are counted from the sample list (node ids), else from the nodes' hit counts, for a walk that deep only.
 */
export function cutSubtrees(
  w: WalkOrder,
  count: number,
  samples: ArrayLike<unknown>,
  hitCounts: ArrayLike<number>,
): CutSubtrees | undefined {
  const { queue, qn, parent, at } = w;
  const depth = new Int32Array(parent.length).fill(-1);
  let deepest = 0;
  for (let q = 0; q < qn; q++) {
    const id = queue[q];
    if (depth[id] >= 0) continue;
    const p = parent[id];
    const d = p >= 0 && depth[p] >= 0 ? depth[p] + 1 : 0;
    depth[id] = d;
    if (d > deepest) deepest = d;
  }
  if (deepest <= V8_MAX_FRAMES) return undefined;
  // The root's child each node lies under (by id), in the same parents-first order.
  const under = new Int32Array(parent.length).fill(-1);
  for (let q = 0; q < qn; q++) {
    const id = queue[q];
    if (depth[id] === 1) under[id] = id;
    else if (depth[id] > 1 && under[id] < 0) under[id] = under[parent[id]];
  }
  const h = new Float64Array(count);
  if (samples.length) {
    for (let s = 0; s < samples.length; s++) {
      const id = samples[s] as number;
      if (id >= 0 && id < at.length && at[id] >= 0) h[at[id]]++;
    }
  } else for (let i = 0; i < count; i++) h[i] = hitCounts[i] > 0 ? hitCounts[i] : 0;
  const shallowest = new Int32Array(parent.length).fill(-1);
  const deepestHit = new Int32Array(parent.length);
  const weight = new Float64Array(parent.length);
  for (let id = 0; id < parent.length; id++) {
    const r = under[id];
    const i = at[id];
    if (r < 0 || i < 0 || !(h[i] > 0)) continue;
    weight[r] += h[i];
    if (shallowest[r] < 0 || depth[id] < shallowest[r]) shallowest[r] = depth[id];
    if (depth[id] > deepestHit[r]) deepestHit[r] = depth[id];
  }
  const cut = new Uint8Array(count);
  let all = 0;
  let top = -1;
  for (let r = 0; r < parent.length; r++) {
    if (depth[r] !== 1 || !(weight[r] > 0) || deepestHit[r] <= V8_MAX_FRAMES || shallowest[r] <= CUT_SHALLOWEST) continue;
    cut[at[r]] = 1;
    all += weight[r];
    if (top < 0 || weight[r] > weight[top]) top = r;
  }
  return all > 0 ? { cut, samples: all, top: at[top], topSamples: weight[top] } : undefined;
}
