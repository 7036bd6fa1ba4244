import { CallTree } from './callTree';
import { CATEGORIES, type Category, type Frame, type Tier } from './frame';
import type { LineHits, Profile } from './profile';
import { packedTimeline, type PackedTimes } from './mergedTimes';

/**
 * A Profile laid out for `postMessage`: numbers in typed arrays whose buffers are transferred (not
 * copied), strings interned once. Structured-cloning the model as is costs an object per frame and
 * per line hit, which for a big import is most of the time spent crossing the thread boundary.
 */
export interface PackedProfile {
  format: Profile['format'];
  meta: Profile['meta'];
  threads: Profile['threads'];
  warnings: string[];
  strings: string[];
  /**
   * Each frame's name, as is: names are mostly distinct (a 100k-frame profile has 100k), so looking each up in the
   * interning map cost more than sending it, and was most of the pack.
   */
  frameNames: string[];
  /** Per frame, FRAME_FIELDS numbers (f64: damaged inputs give lines past 2^31): see `packFrames`. */
  frameInts: Float64Array;
  treeCount: number;
  parent: Int32Array;
  frame: Int32Array;
  self: Float64Array;
  selfTime: Float64Array;
  hitFiles: string[];
  /** hitFiles[i] owns rows hitStart[i] .. hitStart[i + 1] of hitLines/hitSelf/hitTotal. */
  hitStart: Int32Array;
  hitLines: Float64Array;
  hitSelf: Float64Array;
  hitTotal: Float64Array;
  /** `times`, or a merged run's times as they are held (`packed`, see mergedTimes.ts): not unpacked to be sent. */
  timeline?: { nodes: Uint32Array; times?: Float64Array; packed?: PackedTimes; weights?: Float64Array };
  deopts?: Profile['deopts'];
  /** Profile.threadLineHits, each thread's packed like the profile's own. */
  threadLineHits?: { thread: string; hits: PackedLineHits }[];
  requests?: Profile['requests'];
}

type PackedLineHits = Pick<PackedProfile, 'hitFiles' | 'hitStart' | 'hitLines' | 'hitSelf' | 'hitTotal'>;

const TIERS: (Tier | undefined)[] = [undefined, 'interpreted', 'sparkplug', 'maglev', 'turbofan', 'builtin', 'native', 'unknown'];
// file, line, column, category, tier, pkg, lib, has generated, generated file, line, column (the name: frameNames)
const FRAME_FIELDS = 11;

class Strings {
  readonly list: string[] = [''];
  private readonly ids = new Map<string, number>([['', 0]]);
  id(s: string | undefined): number {
    if (s === undefined) return -1;
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.ids.set(s, i);
    }
    return i;
  }
}

function packFrames(frames: Frame[], strings: Strings): { frameInts: Float64Array; frameNames: string[] } {
  const out = new Float64Array(frames.length * FRAME_FIELDS);
  const names: string[] = new Array(frames.length);
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i];
    const o = i * FRAME_FIELDS;
    names[i] = f.name;
    out[o] = strings.id(f.file);
    out[o + 1] = f.line;
    out[o + 2] = f.column;
    out[o + 3] = CATEGORIES.indexOf(f.category);
    out[o + 4] = Math.max(0, TIERS.indexOf(f.tier));
    out[o + 5] = strings.id(f.pkg);
    out[o + 6] = strings.id(f.lib);
    if (f.generated) {
      out[o + 7] = 1;
      out[o + 8] = strings.id(f.generated.file);
      out[o + 9] = f.generated.line;
      out[o + 10] = f.generated.column;
    }
  }
  return { frameInts: out, frameNames: names };
}

function unpackFrames(ints: Float64Array, names: string[], strings: string[]): Frame[] {
  const n = ints.length / FRAME_FIELDS;
  const frames: Frame[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * FRAME_FIELDS;
    const f: Frame = {
      name: names[i],
      file: strings[ints[o]],
      line: ints[o + 1],
      column: ints[o + 2],
      category: (CATEGORIES[ints[o + 3]] ?? 'unaccounted') as Category,
    };
    const tier = TIERS[ints[o + 4]];
    if (tier) f.tier = tier;
    if (ints[o + 5] >= 0) f.pkg = strings[ints[o + 5]];
    if (ints[o + 6] >= 0) f.lib = strings[ints[o + 6]];
    if (ints[o + 7]) f.generated = { file: strings[ints[o + 8]], line: ints[o + 9], column: ints[o + 10] };
    frames[i] = f;
  }
  return frames;
}

function packLineHits(hits: LineHits) {
  const hitFiles = [...hits.keys()];
  let rows = 0;
  for (const m of hits.values()) rows += m.size;
  const hitStart = new Int32Array(hitFiles.length + 1);
  const hitLines = new Float64Array(rows);
  const hitSelf = new Float64Array(rows);
  const hitTotal = new Float64Array(rows);
  let r = 0;
  hitFiles.forEach((file, i) => {
    hitStart[i] = r;
    for (const [line, h] of hits.get(file)!) {
      hitLines[r] = line;
      hitSelf[r] = h.self;
      hitTotal[r] = h.total;
      r++;
    }
  });
  hitStart[hitFiles.length] = r;
  return { hitFiles, hitStart, hitLines, hitSelf, hitTotal };
}

/** The profile packed for another thread, and the buffers to list as `postMessage` transferables. */
/**
 * `handOver`: the sender keeps nothing of `p` (a one-off import), so a sample array at the start of its buffer is sent
 * as it is, not copied: the timeline of a big profile is most of its bytes (230 MB for 19 M samples, 145 ms to copy).
 */
export function packProfile(p: Profile, { handOver = false } = {}): { packed: PackedProfile; transfer: ArrayBuffer[] } {
  const strings = new Strings();
  const { frameInts, frameNames } = packFrames(p.frames, strings);
  const t = p.tree;
  // Copies trimmed to the node count: the live arrays have spare capacity and stay usable here.
  const packed: PackedProfile = {
    format: p.format,
    meta: p.meta,
    threads: p.threads,
    warnings: p.warnings,
    strings: strings.list,
    frameNames,
    frameInts,
    treeCount: t.count,
    parent: t.parent.slice(0, t.count),
    frame: t.frame.slice(0, t.count),
    self: t.self.slice(0, t.count),
    selfTime: t.selfTime.slice(0, t.count),
    ...packLineHits(p.lineHits),
  };
  // A view at the start of a longer buffer goes too: the readers reserve their arrays' capacity from the file's
  // size, and the pages past the view were never written, so they hold no memory.
  const own = <T extends Uint32Array | Float64Array>(a: T): T => (handOver && a.byteOffset === 0 ? a : (a.slice() as T));
  const pt = p.timeline?.packed;
  if (p.timeline)
    packed.timeline = {
      nodes: own(p.timeline.nodes),
      // The small per-block and per-node arrays and the few wide samples are copied by the post.
      ...(pt ? { packed: { ...pt, us: own(pt.us) } } : { times: own(p.timeline.times) }),
      ...(p.timeline.weights ? { weights: own(p.timeline.weights) } : {}),
    };
  if (p.deopts) packed.deopts = p.deopts;
  if (p.requests) packed.requests = p.requests;
  if (p.threadLineHits) packed.threadLineHits = [...p.threadLineHits].map(([thread, hits]) => ({ thread, hits: packLineHits(hits) }));
  const arrays: { buffer: ArrayBufferLike }[] = [
    packed.frameInts,
    packed.parent,
    packed.frame,
    packed.self,
    packed.selfTime,
    packed.hitStart,
    packed.hitLines,
    packed.hitSelf,
    packed.hitTotal,
  ];
  const tl = packed.timeline;
  if (tl) arrays.push(tl.nodes, tl.packed ? tl.packed.us : tl.times!, ...(tl.weights ? [tl.weights] : []));
  for (const { hits } of packed.threadLineHits ?? []) arrays.push(hits.hitStart, hits.hitLines, hits.hitSelf, hits.hitTotal);
  // A buffer listed twice fails the post: two handed-over arrays may share one.
  return { packed, transfer: [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))] };
}

/** The Profile back from `packProfile`'s output, with a call tree that can grow like a fresh one. */
function unpackLineHits(x: PackedLineHits): LineHits {
  const lineHits: LineHits = new Map();
  x.hitFiles.forEach((file, i) => {
    const m = new Map<number, { self: number; total: number }>();
    for (let r = x.hitStart[i]; r < x.hitStart[i + 1]; r++) m.set(x.hitLines[r], { self: x.hitSelf[r], total: x.hitTotal[r] });
    lineHits.set(file, m);
  });
  return lineHits;
}

export function unpackProfile(x: PackedProfile): Profile {
  const lineHits = unpackLineHits(x);
  const frames = unpackFrames(x.frameInts, x.frameNames, x.strings);
  const tree = CallTree.fromArrays(
    { count: x.treeCount, parent: x.parent, frame: x.frame, self: x.self, selfTime: x.selfTime },
    frames.length,
  );
  const p: Profile = {
    format: x.format,
    meta: x.meta,
    frames,
    tree,
    threads: x.threads,
    lineHits,
    warnings: x.warnings,
  };
  const tl = x.timeline;
  if (tl?.packed) p.timeline = packedTimeline(tl.nodes, tl.packed, tl.weights);
  else if (tl?.times) p.timeline = { nodes: tl.nodes, times: tl.times, ...(tl.weights ? { weights: tl.weights } : {}) };
  if (x.deopts) p.deopts = x.deopts;
  if (x.requests) p.requests = x.requests;
  if (x.threadLineHits) p.threadLineHits = new Map(x.threadLineHits.map((t) => [t.thread, unpackLineHits(t.hits)]));
  return p;
}
