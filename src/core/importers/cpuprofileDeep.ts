import type { CpuTreeArrays } from './cpuprofileTree';
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
 * and none nearer to it than 128 is such a cut (a real entry, as the main module or a timer's callback, has samples
 * nearer to it, and can reach 256 only through inlined frames). Undefined where none is, or where the nodes are
 * linked by `parent` (older Chrome exports, never this deep).
 */
export function cutSubtrees(t: CpuTreeArrays, samples: ArrayLike<unknown>, hitCounts: ArrayLike<number>): CutSubtrees | undefined {
  const n = t.count;
  const at = indexOfIds(t.ids, n);
  const isChild = new Uint8Array(n);
  for (let k = 0; k < t.childStart[n]; k++) {
    const c = at(t.children[k]);
    if (c >= 0) isChild[c] = 1;
  }
  // Parents first, from each root: depth, and the root's child each node lies under.
  const depth = new Int32Array(n).fill(-1);
  const under = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let tail = 0;
  let deepest = 0;
  for (let i = 0; i < n; i++)
    if (!isChild[i]) {
      depth[i] = 0;
      queue[tail++] = i;
    }
  for (let head = 0; head < tail; head++) {
    const i = queue[head];
    for (let k = t.childStart[i]; k < t.childStart[i + 1]; k++) {
      const c = at(t.children[k]);
      if (c < 0 || depth[c] >= 0) continue;
      depth[c] = depth[i] + 1;
      under[c] = depth[c] === 1 ? c : under[i];
      if (depth[c] > deepest) deepest = depth[c];
      queue[tail++] = c;
    }
  }
  if (deepest <= V8_MAX_FRAMES) return undefined;
  const hits = new Float64Array(n);
  if (samples.length) {
    for (let s = 0; s < samples.length; s++) {
      const i = at(samples[s] as number);
      if (i >= 0) hits[i]++;
    }
  } else for (let i = 0; i < n; i++) hits[i] = hitCounts[i] > 0 ? hitCounts[i] : 0;
  const shallowest = new Int32Array(n).fill(-1);
  const deepestHit = new Int32Array(n);
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = under[i];
    if (r < 0 || !hits[i]) continue;
    weight[r] += hits[i];
    if (shallowest[r] < 0 || depth[i] < shallowest[r]) shallowest[r] = depth[i];
    if (depth[i] > deepestHit[r]) deepestHit[r] = depth[i];
  }
  const cut = new Uint8Array(n);
  let all = 0;
  let top = -1;
  for (let r = 0; r < n; r++) {
    if (depth[r] !== 1 || !(weight[r] > 0) || deepestHit[r] <= V8_MAX_FRAMES || shallowest[r] <= CUT_SHALLOWEST) continue;
    cut[r] = 1;
    all += weight[r];
    if (top < 0 || weight[r] > weight[top]) top = r;
  }
  return all > 0 ? { cut, samples: all, top, topSamples: weight[top] } : undefined;
}

/** Node index by id, -1 for none: an array where V8 numbered the nodes densely (it does), a Map otherwise. */
function indexOfIds(ids: ArrayLike<number>, n: number): (id: number) => number {
  let max = 0;
  let dense = true;
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (!(id >= 0 && id === Math.floor(id))) dense = false;
    else if (id > max) max = id;
  }
  if (dense && max <= 4 * n + 65536) {
    const arr = new Int32Array(max + 1).fill(-1);
    for (let i = 0; i < n; i++) arr[ids[i]] = i;
    return (id) => (id >= 0 && id <= max ? arr[id] : -1);
  }
  const map = new Map<number, number>();
  for (let i = 0; i < n; i++) map.set(ids[i], i);
  return (id) => map.get(id) ?? -1;
}
