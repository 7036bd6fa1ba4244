import { readFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { Category, classifyJsFile, evalFrame, Frame, isWasmUrl, Profile, ProfileBuilder, ProfileError, wasmFrame } from '../model';
import { fileUrlToPathAnyOs } from '../paths';
import { readCpuProfileStream } from './cpuprofileStream';
import { CpuNodeTable, finite, repairNode, type CallFrame, type CpuNode } from './cpuprofileNodes';
import { placeCpuTreeArrays } from './cpuprofileTree';
import { cutSubtrees, type CutSubtrees } from './cpuprofileDeep';
import { deepStacksNote, STACK_TOO_DEEP, TOO_DEEP_NOTE_SHARE, V8_MAX_FRAMES } from './deepStacks';
import { OWN_FRAMES } from './ownFrames';
import { MAX_DELTA } from './jsonScan';
import { noteSteps } from '../model/packedTimeline';
import { packedTimeline, PACKED_BLOCK_BITS, WIDE_US } from '../model/mergedTimes';
import { packedSumAt, unpackSums, type PackedSums } from './numberList';
import type { Importer } from './types';

interface CpuProfile {
  /** A CpuNodeTable when read by the streaming reader. */
  nodes: CpuNode[] | CpuNodeTable;
  startTime?: number;
  endTime?: number;
  /** Typed arrays when read by the streaming reader. */
  samples?: ArrayLike<number>;
  timeDeltas?: ArrayLike<number>;
  /**
   * The streaming reader's form of `timeDeltas`: their running sums (µs from the start), damaged deltas as 0; packed
   * (PackedSums) when it was asked to and they are whole µs.
   */
  timeSums?: Float64Array | PackedSums;
}

const isList = (x: unknown): x is ArrayLike<unknown> => Array.isArray(x) || ArrayBuffer.isView(x);

const SPECIAL: Record<string, Category | null> = {
  '(root)': null,
  '(program)': 'program',
  '(idle)': 'idle',
  '(garbage collector)': 'gc',
};

/**
 * V8 gives no script for C++ callbacks (`compileFunction`, `pbkdf2Sync`'s binding) nor for its own
 * builtins and RegExp code; a bare identifier is a binding, anything else is V8's.
 */
function nativeOrV8(name: string): Category {
  // V8's WebAssembly wrappers (GenericJSToWasmWrapper, the JS-to-Wasm call) are builtins, not bindings.
  if (/^(RegExp:|\/)/.test(name) || /Wasm/.test(name)) return 'v8';
  return /^[A-Za-z_$][\w$.]*$/.test(name) ? 'native' : 'v8';
}

export function cpuFrame(cf: CallFrame): Frame | null {
  const raw = cf.functionName ?? '';
  const url = cf.url ?? '';
  // Own keys only: a binding named `toString` or `constructor` is no special frame (`in` found Object's methods).
  if (!url && Object.hasOwn(SPECIAL, raw)) {
    const category = SPECIAL[raw];
    return category ? { name: raw, file: '', line: 0, column: 0, category } : null;
  }
  const own = url ? undefined : OWN_FRAMES.get(raw);
  if (own) return { name: raw, file: '', line: 0, column: 0, category: own };
  const name = raw || '(anonymous)';
  if (isWasmUrl(url)) return wasmFrame(name, url);
  const file = fileUrlToPathAnyOs(url);
  const line = typeof cf.lineNumber === 'number' && cf.lineNumber >= 0 ? cf.lineNumber + 1 : 0;
  const column = typeof cf.columnNumber === 'number' && cf.columnNumber >= 0 ? cf.columnNumber + 1 : 0;
  // eval / new Function code has positions but no script url; bindings and builtins have neither.
  if (!file)
    return line > 0 ? evalFrame(name, line, column, cf.scriptId) : { name, file: '', line: 0, column: 0, category: nativeOrV8(name) };
  const { category, pkg } = classifyJsFile(file);
  return { name, file, line, column, category, ...(pkg ? { pkg } : {}) };
}

function sniffCpuProfile(head: Buffer): boolean {
  const s = head
    .toString('utf8', 0, Math.min(head.length, 65536))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (!s.startsWith('{')) return false;
  return /"nodes"\s*:\s*\[/.test(s) && /"callFrame"\s*:/.test(s);
}

/** `corrupt` words the error for a file that is not JSON (the .cpuprofile's by default). */
export async function readJson(
  path: string,
  corrupt = (why: string) => l10n.t('not valid JSON, the .cpuprofile is truncated or corrupt ({0})', why),
): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // V8 strings stop at ~512 MB: a bigger .cpuprofile cannot be one JSON.parse.
    if (code === 'ERR_STRING_TOO_LONG' || e instanceof RangeError)
      throw new ProfileError(l10n.t('too large to read as one JSON document (the limit is about 512 MB)'), path);
    throw new ProfileError(l10n.t('cannot read: {0}', code ?? (e as Error).message), path);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    throw new ProfileError(corrupt(why), path);
  }
}

const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const isNodes = (x: unknown): x is CpuNode[] | CpuNodeTable => Array.isArray(x) || x instanceof CpuNodeTable;

export function asCpuProfile(json: unknown, path: string): CpuProfile {
  let p = json as Partial<CpuProfile> & { profile?: CpuProfile };
  // The inspector's `Profiler.stop` result wraps the profile.
  if (p && typeof p === 'object' && !isNodes(p.nodes) && p.profile && typeof p.profile === 'object') p = p.profile;
  if (!p || typeof p !== 'object' || !isNodes(p.nodes) || p.nodes.length === 0) {
    throw new ProfileError(l10n.t('not a .cpuprofile: no "nodes" array'), path);
  }
  // Damaged or hand-edited files: each field the model reads gets the type it expects, or goes (the streaming reader's
  // table has had its nodes repaired one by one as they came).
  let bad = p.nodes instanceof CpuNodeTable && p.nodes.bad;
  if (Array.isArray(p.nodes)) for (let i = 0; i < p.nodes.length && !bad; i++) bad = !repairNode(p.nodes[i]);
  if (bad) throw new ProfileError(l10n.t('not a .cpuprofile: a node lacks "id" or "callFrame"'), path);
  p.startTime = finite(p.startTime);
  p.endTime = finite(p.endTime);
  return p as CpuProfile;
}

/** Builds the model from a parsed `.cpuprofile`; exported for the inspector (attach) path. */
/** `noting`: the timeline will be packed (a run's process), so the steps between its times are noted (noteSteps). */
export function cpuProfileToModel(p: CpuProfile, source?: string, noting = false): Profile {
  const startUs = typeof p.startTime === 'number' ? p.startTime : 0;
  const endUs = typeof p.endTime === 'number' ? p.endTime : startUs;
  const b = new ProfileBuilder('cpuprofile', {
    durationMs:
      typeof p.startTime === 'number' && typeof p.endTime === 'number' && Number.isFinite(endUs - startUs)
        ? Math.max(0, (endUs - startUs) / 1000)
        : null,
    mode: 'cpu-prof',
    startTime: startUs / 1000,
    ...(source ? { source } : {}),
  });
  // Model tree node per cpuprofile node, parents first; `(root)` folds into the model root.
  const table = p.nodes instanceof CpuNodeTable ? p.nodes : CpuNodeTable.of(p.nodes);
  // A call frame is made a frame (URL decoded, classed, interned) once, when the walk first reaches it: the ids come
  // in the order they always did, and 100k nodes share a few thousand call frames.
  const frameIds = new Int32Array(table.frames.length).fill(-2);
  let deep: CutSubtrees | undefined;
  let tooDeep = -1;
  const placed = placeCpuTreeArrays(
    table,
    (i, parentModel) => {
      if (deep?.cut[i] === 1) parentModel = b.tree.child(parentModel, (tooDeep = tooDeep < 0 ? b.frame(STACK_TOO_DEEP) : tooDeep));
      const c = table.frameOf[i];
      let f = frameIds[c];
      if (f === -2) {
        const frame = cpuFrame(table.frames[c]);
        frameIds[c] = f = frame ? b.frame(frame) : -1;
      }
      return f >= 0 ? b.tree.child(parentModel, f) : parentModel;
    },
    (walk) => (deep = cutSubtrees(walk, table.count, isList(p.samples) ? p.samples : [], table.hitCounts)),
  );
  if (!placed) throw new ProfileError(l10n.t('not a .cpuprofile: the call tree has no root'), source);

  // A count past 2^53 is not even exact, and two near 1e308 add up to Infinity.
  let absurd = 0;
  const samples: ArrayLike<unknown> = isList(p.samples) ? p.samples : [];
  const toModel = placed.dense;
  let sums = p.timeSums instanceof Float64Array ? p.timeSums : undefined;
  // Packed sums become the timeline's packed times (its times read back as `µs / 1000`, the same numbers): when they
  // cover the samples, which are the streaming reader's, and no caller packs the timeline its own way (noting).
  let packedSums = p.timeSums && !(p.timeSums instanceof Float64Array) ? p.timeSums : undefined;
  const sumCount = packedSums?.us.length ?? 0;
  if (packedSums && !(samples instanceof Int32Array && samples.length > 0 && sumCount >= samples.length && toModel && !noting)) {
    sums = unpackSums(packedSums);
    packedSums = undefined;
  }
  const deltas: ArrayLike<unknown> = sums ?? (isList(p.timeDeltas) ? p.timeDeltas : []);
  let timeline: Profile['timeline'];
  if (samples.length > 0) {
    const n = samples.length;
    // The streaming reader's Int32Array of node ids becomes the timeline's model nodes in place, and its running
    // sums of the deltas the times: no second array of either.
    const nodes = samples instanceof Int32Array ? new Uint32Array(samples.buffer, samples.byteOffset, n) : new Uint32Array(n);
    const times = packedSums ? new Float64Array(0) : sums && sums.length >= n ? sums.subarray(0, n) : new Float64Array(n);
    // Sample i happens at start + Σ deltas[0..i]; it stands for the time until the next one. Its node's count and time
    // are summed in the same pass, in sample order (each sample's time once the next one's is known), then added once:
    // the same sums as one addSelf per sample, at a fraction of the calls and with one pass over tens of millions.
    const count = new Float64Array(b.tree.count);
    const time = new Float64Array(b.tree.count);
    let t = 0;
    let unknown = 0;
    let prevNode = 0;
    let prevTime = 0;
    const streamed = samples instanceof Int32Array && ((sums && times.buffer === sums.buffer) || packedSums) && toModel;
    if (packedSums && streamed) {
      for (let from = 0; from < n; from += SAMPLE_BLOCK)
        unknown += placeSamples(samples, packedSums, toModel, nodes, undefined, count, time, from, Math.min(n, from + SAMPLE_BLOCK));
      prevNode = nodes[n - 1];
      prevTime = packedMs(packedSums, n - 1);
    } else if (streamed && sums) {
      // The streaming reader's arrays go through a small function of their own, a block at a time: it is optimized
      // within a block or two, where this loop, part of a big function, ran mostly interpreted (a number object made
      // per sample: tens of MB of garbage per million samples).
      // The sums are whole µs as the fast path reads them: their steps are noted before placeSamples divides them.
      const first = sums[0];
      const steps = noting && first >= 0 && first === Math.floor(first) ? new Uint16Array(n) : undefined;
      let sum = first;
      for (let from = 0; from < n; from += SAMPLE_BLOCK) {
        const to = Math.min(n, from + SAMPLE_BLOCK);
        if (steps && sum === sum) sum = stepsOf(sums, steps, from, to, sum);
        unknown += placeSamples(samples, sums, toModel, nodes, times, count, time, from, to);
      }
      if (steps && sum <= 2 ** 50) noteSteps(times, steps);
      prevNode = nodes[n - 1];
      prevTime = times[n - 1];
    }
    for (let i = streamed ? n : 0; i < n; i++) {
      if (sums) t = i < sums.length ? sums[i] : t;
      else {
        // Deltas beyond ~11 days are damage, and would sum to Infinity.
        const d: unknown = deltas[i];
        t += typeof d === 'number' && d > 0 && d < MAX_DELTA ? d : 0;
      }
      const at = t / 1000;
      times[i] = at;
      const s = samples[i] as number;
      const m = toModel ? (s >>> 0 === s && s < toModel.length ? toModel[s] : -1) : placed.modelOf(s);
      if (m < 0) unknown++;
      const node = m < 0 ? 0 : m;
      nodes[i] = node;
      if (i > 0) time[prevNode] += Math.max(0, at - prevTime);
      count[node]++;
      prevNode = node;
      prevTime = at;
    }
    const lastAt = packedSums ? packedSumAt(packedSums, n - 1) / 1000 : times[n - 1];
    const tail = Math.max(lastAt, Number.isFinite(endUs - startUs) ? (endUs - startUs) / 1000 : 0);
    time[prevNode] += Math.max(0, tail - prevTime);
    for (let k = 0; k < count.length; k++) if (count[k]) b.tree.addSelf(k, count[k], time[k]);
    if (unknown) b.warn(l10n.t('{0} samples point at nodes the profile does not define; counted as unaccounted', unknown));
    const deltaCount = packedSums ? sumCount : deltas.length;
    if (deltaCount !== n) b.warn(l10n.t('the profile has {0} samples but {1} time deltas; times are approximate', n, deltaCount));
    if (n > 1) b.meta.intervalMs = lastAt / (n - 1) || undefined;
    if (b.meta.durationMs === null) b.meta.durationMs = lastAt;
    if (packedSums) {
      // One process on its own axis: no offsets (see PackedTimes), one array of zeros for both.
      const zeros = new Float64Array(b.tree.count);
      const { blockUs, wide } = packedSums;
      timeline = packedTimeline(nodes, { us: packedSums.us.subarray(0, n), blockUs, usOfNode: zeros, msOfNode: zeros, wide });
    } else timeline = { nodes, times };
  } else {
    // Without a sample list, hit counts are all there is.
    for (let i = 0; i < table.count; i++) {
      const hits = table.hitCounts[i];
      if (!hits) continue;
      if (hits <= MAX_COUNT) b.tree.addSelf(Math.max(0, placed.modelOf(table.ids[i])), hits);
      else absurd++;
    }
  }

  const pathOfUrl = new Map<string, string>();
  // Ticks on lines above a function's own declaration ran code V8 inlined into it (its own code cannot be there), by
  // call frame; made when the first such tick is seen.
  let inlinedBy: Float64Array | undefined;
  for (let k = 0; k < table.tickNodes.length; k++) {
    const c = table.frameOf[table.tickNodes[k]];
    const cf = table.frames[c];
    const url = cf.url ?? '';
    // A WebAssembly function's ticks are all at its "line 1": the module's bytes have no lines.
    if (isWasmUrl(url)) continue;
    let file = pathOfUrl.get(url);
    if (file === undefined) pathOfUrl.set(url, (file = fileUrlToPathAnyOs(url)));
    // positionTicks are 1-based, call frames' lines 0-based: a tick before line `declared` (1-based) is not the function's.
    const declared = (cf.lineNumber ?? -1) + 1;
    // positionTicks are the leaf's executing line, so they are self (and, at that line, total) hits.
    for (const pt of table.ticks[k]) {
      if (pt.ticks <= MAX_COUNT) {
        b.lineHit(file, pt.line, pt.ticks, pt.ticks);
        if (pt.line < declared) (inlinedBy ??= new Float64Array(table.frames.length))[c] += pt.ticks;
      } else absurd++;
    }
  }
  if (absurd) b.warn(l10n.t('{0} hit counts larger than 2^53 (damage, not samples) were ignored', absurd));
  const all = deep || inlinedBy ? (samples.length > 0 ? samples.length : sumHits(table)) : 0;
  if (deep && deep.samples / all >= TOO_DEEP_NOTE_SHARE) {
    const top = table.frames[table.frameOf[deep.top]];
    b.warn(deepStacksNote('v8', V8_MAX_FRAMES, deep.samples, all, top?.functionName || '(anonymous)', deep.topSamples)!);
  }
  if (inlinedBy) warnInlined(b, table, inlinedBy, all);

  const profile = b.build();
  if (timeline) profile.timeline = timeline;
  return profile;
}

const SAMPLE_BLOCK = 1 << 16;

/**
 * The share of samples on lines above their function's declaration from which cpu-prof says that inlined functions are
 * not told apart (as perf mode does for its optimized code).
 */
const INLINED_NOTE_SHARE = 0.1;

function sumHits(table: CpuNodeTable): number {
  let all = 0;
  for (let i = 0; i < table.count; i++) if (table.hitCounts[i] <= MAX_COUNT) all += table.hitCounts[i];
  return all;
}

/**
 * V8's CPU profiler names the function whose optimized code ran, not those inlined into it: their time is that
 * function's own, with their lines kept in its positionTicks (measured: `work` 97.6 % self in cpu-prof, `area`, inlined
 * 4 calls deep, 87.7 % in prof mode, which reads V8's inlining tables). Only ticks above the declaration can be told
 * without the source, so this is a lower bound. Said once per profile where it weighs; nothing is re-attributed.
 */
function warnInlined(b: ProfileBuilder, table: CpuNodeTable, inlinedBy: Float64Array, all: number): void {
  let inlined = 0;
  let top = 0;
  for (let c = 0; c < inlinedBy.length; c++) {
    inlined += inlinedBy[c];
    if (inlinedBy[c] > inlinedBy[top]) top = c;
  }
  if (!(all > 0 && inlined / all >= INLINED_NOTE_SHARE)) return;
  const cf = table.frames[top];
  const file = fileUrlToPathAnyOs(cf.url ?? '');
  const where = `${file || cf.url || '?'}:${(cf.lineNumber ?? 0) + 1}`;
  b.warn(
    l10n.t(
      "at least {0} of the samples ran in functions V8 inlined into their caller, most of them in {1} ({2}): V8's CPU profiler counts the time of functions inlined into a function as that function's own. The prof mode (--mode prof) names inlined functions separately",
      `${(Math.min(1, inlined / all) * 100).toFixed(1)} %`,
      cf.functionName || '(anonymous)',
      where,
    ),
  );
}

/**
 * The steps between sums `from` to `to` into `steps` (`prev`: the sum before `from`, the first sum itself at 0), as
 * packTimeline would find them. Returns the last sum, or NaN when a step is not a whole number of µs in 0..65535.
 */
function stepsOf(sums: Float64Array, steps: Uint16Array, from: number, to: number, prev: number): number {
  for (let i = from; i < to; i++) {
    const s = sums[i];
    const d = s - prev;
    if ((d & 0xffff) !== d) return NaN;
    steps[i] = d;
    prev = s;
  }
  return prev;
}

/**
 * Samples `from` to `to` of the streaming reader's arrays, as cpuProfileToModel's loop places them: each sample's model
 * node (in place over `samples`) and time (in place over `sums`, as `times`; packed sums are not written, they stay
 * packed), and its node's count and time. The previous sample's node and time are read back from what the previous
 * block wrote: state written after the loop (a Float64Array) had no type feedback in the loop's on-stack compile, which
 * gave up there at the end of every block (ten times on a 2-process trace). Returns the samples on no known node.
 */
function placeSamples(
  samples: Int32Array,
  sums: Float64Array | PackedSums,
  toModel: Int32Array,
  nodes: Uint32Array,
  times: Float64Array | undefined,
  count: Float64Array,
  time: Float64Array,
  from: number,
  to: number,
): number {
  const flat = sums instanceof Float64Array ? sums : undefined;
  const packed = flat ? undefined : (sums as PackedSums);
  let unknown = 0;
  // `times` may be `sums` itself, written over (ms where the sums were µs).
  let prevNode = from > 0 ? nodes[from - 1] : 0;
  let prevTime = from === 0 ? 0 : times ? times[from - 1] : flat ? flat[from - 1] / 1000 : packedMs(packed!, from - 1);
  const known = toModel.length;
  for (let i = from; i < to; i++) {
    let at: number;
    if (flat) at = flat[i] / 1000;
    else {
      const d = packed!.us[i];
      at = (d === WIDE_US ? packedSumAt(packed!, i) : packed!.blockUs[i >>> PACKED_BLOCK_BITS] + d) / 1000;
    }
    if (times) times[i] = at;
    const s = samples[i];
    const m = s >= 0 && s < known ? toModel[s] : -1;
    if (m < 0) unknown++;
    const node = m < 0 ? 0 : m;
    nodes[i] = node;
    if (i > 0) time[prevNode] += Math.max(0, at - prevTime);
    count[node]++;
    prevNode = node;
    prevTime = at;
  }
  return unknown;
}

/** Sample `i`'s time (ms) of packed sums, as placeSamples makes it. */
function packedMs(packed: PackedSums, i: number): number {
  const d = packed.us[i];
  return (d === WIDE_US ? packedSumAt(packed, i) : packed.blockUs[i >>> PACKED_BLOCK_BITS] + d) / 1000;
}

export const cpuprofileImporter: Importer = {
  format: 'cpuprofile',
  sniff: (head) => sniffCpuProfile(head),
  load: async (path, opts) => {
    opts.signal?.throwIfAborted();
    // A caller that packs the timeline its own way (noting its steps) is given the times as ever.
    const json = await readCpuProfileStream(path, { ...opts, packTimes: !opts.packing });
    opts.signal?.throwIfAborted();
    const profile = cpuProfileToModel(asCpuProfile(json, path), path, opts.packing);
    opts.onProgress?.(1);
    return profile;
  },
};
