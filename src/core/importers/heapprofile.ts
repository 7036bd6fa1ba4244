import * as l10n from '@vscode/l10n';
import { type Profile, ProfileBuilder, ProfileError } from '../model';
import { deepStacksNote, STACK_TOO_DEEP, TOO_DEEP_NOTE_SHARE, V8_HEAP_MAX_FRAMES } from './deepStacks';
import { cpuFrame } from './cpuprofile';
import { readJsonStream } from './readJsonStream';
import type { Rule, Schema } from './jsonScan';
import type { Importer } from './types';

interface HeapNode {
  id: number;
  callFrame: { functionName?: string; url?: string; lineNumber?: number; columnNumber?: number; scriptId?: unknown };
  selfSize: number;
  children: HeapNode[];
}

/** What Node Flame's heap preload adds beside V8's fields: which samples the file holds. */
export interface HeapProfileNote {
  /** `allocated`: samples of collected objects kept too; `live`: only objects alive when written (after a full GC). */
  samples: 'allocated' | 'live';
  samplingInterval?: number;
  /** ms since the epoch when sampling began, and how long it ran. */
  startTime?: number;
  durationMs?: number;
}

/** The key of that note in a `.heapprofile`; DevTools and VS Code read `head` and `samples` only. */
export const HEAP_NOTE_KEY = 'nodeFlame';

/** The sample type a heap profile's bytes are named by: what the note says they are, else V8's neutral "space". */
export function heapSampleType(note: HeapProfileNote | undefined): string {
  return note?.samples ?? 'space';
}

function sniffHeapProfile(head: Buffer): boolean {
  const s = head
    .toString('utf8', 0, Math.min(head.length, 65536))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (!s.startsWith('{')) return false;
  return /"head"\s*:\s*\{/.test(s) && /"callFrame"\s*:/.test(s) && /"selfSize"\s*:/.test(s);
}

// Read by streaming: the call tree is walked node by node (each call frame parsed alone), `samples` is stepped over.
const heapNode: Rule & { object: Schema } = { object: { callFrame: 'keep', selfSize: 'small', children: 'keep' } };
heapNode.object.children = { each: heapNode };
const heapKeys: Schema = { head: heapNode, [HEAP_NOTE_KEY]: 'keep' };
/** The inspector's `HeapProfiler.stopSampling` result wraps the profile in `{ profile }`. */
export const heapProfileSchema: Schema = { ...heapKeys, profile: { object: heapKeys } };

/** More bytes than a node's function can allocate (1 PiB): sums of such values would overflow to Infinity. */
const MAX_SELF_BYTES = 2 ** 50;

const finite = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0);

function asNote(x: unknown): HeapProfileNote | undefined {
  if (!x || typeof x !== 'object') return undefined;
  const n = x as Record<string, unknown>;
  if (n.samples !== 'allocated' && n.samples !== 'live') return undefined;
  return {
    samples: n.samples,
    ...(finite(n.samplingInterval) ? { samplingInterval: finite(n.samplingInterval) } : {}),
    ...(finite(n.startTime) ? { startTime: finite(n.startTime) } : {}),
    ...(finite(n.durationMs) ? { durationMs: finite(n.durationMs) } : {}),
  };
}

/**
 * Builds the model from a parsed sampling heap profile (`node --heap-prof`, DevTools' "Allocation
 * sampling", `HeapProfiler.stopSampling`): each node's `selfSize` is the bytes V8 estimates its
 * function allocated, so the tree weighs bytes. V8 records only where a function starts, so line heat
 * sits on that line.
 */
export function heapProfileToModel(json: unknown, source?: string): Profile {
  let p = json as { head?: HeapNode; samples?: unknown[]; profile?: unknown; [HEAP_NOTE_KEY]?: unknown };
  // The inspector's `HeapProfiler.stopSampling` result wraps the profile.
  if (p && typeof p === 'object' && !p.head && p.profile && typeof p.profile === 'object') p = p.profile as typeof p;
  if (!p || typeof p !== 'object' || !p.head || typeof p.head !== 'object')
    throw new ProfileError(l10n.t('not a .heapprofile: no "head" node'), source);
  const note = asNote(p[HEAP_NOTE_KEY]);
  const sampleType = heapSampleType(note);
  const b = new ProfileBuilder('heapprofile', {
    durationMs: note?.durationMs ?? null,
    unit: 'bytes',
    sampleTypes: [{ type: sampleType, unit: 'bytes' }],
    sampleType,
    ...(note?.startTime ? { startTime: note.startTime } : {}),
    ...(note?.samplingInterval ? { intervalBytes: note.samplingInterval } : {}),
    ...(note ? { mode: 'heap' as const } : {}),
    ...(source ? { source } : {}),
  });
  // Depth-first with an exit step per node: a (file, line) counts its bytes once per stack, so its total
  // is the subtree bytes of each node where it first appears going down. Counting the keys on the path
  // (not copying the path's list per node) keeps a 40 000-deep chain linear.
  type Visit = { n: HeapNode; parent: number; depth: number; exit?: false } | { exit: true; own?: string; first: boolean };
  const todo: Visit[] = [{ n: p.head, parent: 0, depth: 0 }];
  const cut = cutHeapSubtrees(p.head);
  let tooDeep = -1;
  const onPath = new Map<string, number>();
  const lineTotal = new Map<string, { file: string; line: number; self: number; total: number }>();
  // Bytes below each open node so far: a stack parallel to the open nodes.
  const below: number[] = [];
  let bad = 0;
  let huge = 0;
  const seen = new Set<unknown>();
  while (todo.length) {
    const v = todo.pop()!;
    if (v.exit) {
      const sub = below.pop()!;
      if (below.length) below[below.length - 1] += sub;
      if (v.own !== undefined) {
        const c = onPath.get(v.own)! - 1;
        if (c) onPath.set(v.own, c);
        else onPath.delete(v.own);
        if (v.first) lineTotal.get(v.own)!.total += sub;
      }
      continue;
    }
    const { n, parent, depth } = v;
    if (!n || typeof n !== 'object' || seen.has(n) || !n.callFrame || typeof n.callFrame !== 'object') {
      bad++;
      continue;
    }
    seen.add(n);
    const cf = n.callFrame;
    const f =
      depth === 0
        ? null
        : cpuFrame({
            functionName: typeof cf.functionName === 'string' ? cf.functionName : '',
            url: typeof cf.url === 'string' ? cf.url : '',
            lineNumber: Number.isSafeInteger(cf.lineNumber) ? cf.lineNumber : -1,
            columnNumber: Number.isSafeInteger(cf.columnNumber) ? cf.columnNumber : -1,
            scriptId: typeof cf.scriptId === 'string' ? cf.scriptId.slice(0, 20) : undefined,
          });
    const under =
      depth === 1 && cut?.subtrees.has(n) ? b.tree.child(parent, (tooDeep = tooDeep < 0 ? b.frame(STACK_TOO_DEEP) : tooDeep)) : parent;
    const node = f ? b.tree.child(under, b.frame(f)) : under;
    let own: string | undefined;
    let first = false;
    if (f && f.file && f.line > 0) {
      own = `${f.line}\0${f.file}`;
      const c = onPath.get(own) ?? 0;
      first = c === 0;
      onPath.set(own, c + 1);
      if (!lineTotal.has(own)) lineTotal.set(own, { file: f.file, line: f.line, self: 0, total: 0 });
    }
    let self = finite(n.selfSize);
    if (self > MAX_SELF_BYTES) {
      huge++;
      self = 0;
    }
    if (self > 0) {
      b.tree.addSelf(node, self);
      if (own) lineTotal.get(own)!.self += self;
    }
    below.push(self);
    todo.push({ exit: true, own, first });
    if (Array.isArray(n.children)) for (const c of n.children) todo.push({ n: c, parent: node, depth: depth + 1 });
  }
  for (const h of lineTotal.values()) if (h.total > 0) b.lineHit(h.file, h.line, h.self, h.total);
  if (huge) b.warn(l10n.t('{0} nodes of the heap profile claim more than {1} bytes; their bytes are left out', huge, MAX_SELF_BYTES));
  if (bad) b.warn(l10n.t('{0} nodes of the heap profile lack a "callFrame" or repeat; they are left out', bad));
  if (cut && cut.bytes / (b.tree.weight || 1) >= TOO_DEEP_NOTE_SHARE) {
    const name = (typeof cut.top.callFrame?.functionName === 'string' && cut.top.callFrame.functionName) || '(anonymous)';
    const note = deepStacksNote('v8-heap', V8_HEAP_MAX_FRAMES, cut.bytes, b.tree.weight, name, cut.topBytes);
    if (note) b.warn(note);
  }
  return b.build();
}

/**
 * V8's heap sampler keeps the 128 innermost JavaScript frames of an allocation's stack: a deeper one hangs from the
 * root at the frame where the cut fell, as if nothing called it. A child of the root with bytes 128 frames deep and none
 * 64 frames deep or nearer is such a cut (see cpuprofileDeep.ts for the same reading of CPU profiles).
 */
function cutHeapSubtrees(head: HeapNode): { subtrees: Set<HeapNode>; bytes: number; top: HeapNode; topBytes: number } | undefined {
  if (!Array.isArray(head.children)) return undefined;
  const subtrees = new Set<HeapNode>();
  let bytes = 0;
  let top: HeapNode | undefined;
  let topBytes = 0;
  const seen = new Set<unknown>([head]);
  for (const r of head.children) {
    let shallowest = Infinity;
    let deepest = 0;
    let sum = 0;
    const todo: [HeapNode, number][] = [[r, 1]];
    while (todo.length) {
      const [n, d] = todo.pop()!;
      if (!n || typeof n !== 'object' || seen.has(n)) continue;
      seen.add(n);
      const self = finite(n.selfSize);
      if (self > 0 && self <= MAX_SELF_BYTES) {
        sum += self;
        if (d < shallowest) shallowest = d;
        if (d > deepest) deepest = d;
      }
      if (Array.isArray(n.children)) for (const c of n.children) todo.push([c, d + 1]);
    }
    if (sum > 0 && deepest >= V8_HEAP_MAX_FRAMES && shallowest > V8_HEAP_MAX_FRAMES >> 1) {
      subtrees.add(r);
      bytes += sum;
      if (sum > topBytes) [top, topBytes] = [r, sum];
    }
  }
  return top ? { subtrees, bytes, top, topBytes } : undefined;
}

export const heapprofileImporter: Importer = {
  format: 'heapprofile',
  sniff: (head) => sniffHeapProfile(head),
  load: async (path, opts) => {
    opts.signal?.throwIfAborted();
    const json = await readJsonStream(
      path,
      heapProfileSchema,
      (why) => l10n.t('not valid JSON, the .heapprofile is truncated or corrupt ({0})', why),
      opts,
    );
    opts.signal?.throwIfAborted();
    const profile = heapProfileToModel(json, path);
    // One run records allocated or live bytes, never both: asking for the other is an error, not a silent swap.
    const has = profile.meta.sampleType ?? '';
    if (opts.sampleType !== undefined && opts.sampleType !== has && opts.sampleType !== `${has}/bytes`)
      throw new ProfileError(l10n.t('no sample type "{0}" in this profile (it has: {1})', opts.sampleType, has), path);
    opts.onProgress?.(1);
    return profile;
  },
};
