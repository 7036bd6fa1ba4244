// Structure-aware mutations for the binary and tree formats (issue 37): pprof's protobuf fields (long
// varints, lengths past their message, wire types, ids out of range, inlined-line and location-id
// explosions, gzip bombs) and `.heapprofile` trees (deep chains, huge and non-finite sizes, cycles).
import { gunzipSync, gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuProfileToModel } from '../../src/core/importers/cpuprofile';
import { toPprof } from '../../src/core/exporters/pprof';

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];
const depthOf = (r: Rand, lo: number, hi: number) => Math.floor(lo * Math.pow(hi / lo, r()));

/** The fuzz seeds made from the real `.cpuprofile` seed: the same run as pprof (our exporter's bytes) and as a heap profile. */
export function derivedSeeds(dir: string): { pprof: Buffer; heapprofile: Buffer } {
  const cpu = JSON.parse(readFileSync(join(dir, 'seed.cpuprofile'), 'utf8')) as {
    nodes: { id: number; callFrame: object; hitCount?: number; children?: number[] }[];
  };
  // Kept decompressed, so the mutations see the protobuf; each case is gzipped or not at the end.
  const pprof = gunzipSync(toPprof(cpuProfileToModel(cpu as never, 'seed.cpuprofile')));
  // The call tree as V8's sampling heap profiler writes it: nested nodes, bytes per node.
  const byId = new Map(cpu.nodes.map((n) => [n.id, n]));
  const seen = new Set<number>();
  const nest = (id: number): object => {
    seen.add(id);
    const n = byId.get(id)!;
    const kids = (n.children ?? []).filter((c) => byId.has(c) && !seen.has(c));
    return { callFrame: n.callFrame, selfSize: (n.hitCount ?? 0) * 1024, id, children: kids.map(nest) };
  };
  const heap = { head: nest(cpu.nodes[0].id), samples: [] };
  return { pprof, heapprofile: Buffer.from(JSON.stringify(heap)) };
}

// --- protobuf ---

/** A field of a message: its tag byte(s), and for wire type 2 the body; else the raw varint/fixed bytes. */
interface Field {
  field: number;
  wire: number;
  body: Buffer;
}

function varint(n: number): Buffer {
  const out: number[] = [];
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out.push(v);
      break;
    }
    out.push(v % 128 | 0x80);
  }
  return Buffer.from(out);
}

/** The fields of a message, or null when it does not parse (a mutation then falls back to bytes). */
function parse(b: Buffer): Field[] | null {
  const out: Field[] = [];
  let pos = 0;
  const readVarint = (): number | null => {
    let v = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= b.length) return null;
      const x = b[pos++];
      v += (x & 0x7f) * 2 ** (7 * i);
      if (x < 0x80) return v;
    }
    return null;
  };
  while (pos < b.length) {
    const tag = readVarint();
    if (tag === null) return null;
    const wire = tag & 7;
    const start = pos;
    if (wire === 0) {
      if (readVarint() === null) return null;
      out.push({ field: Math.floor(tag / 8), wire, body: b.subarray(start, pos) });
    } else if (wire === 2) {
      const len = readVarint();
      if (len === null || pos + len > b.length) return null;
      out.push({ field: Math.floor(tag / 8), wire, body: b.subarray(pos, pos + len) });
      pos += len;
    } else return null;
  }
  return out;
}

function encode(fs: Field[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of fs) {
    parts.push(varint(f.field * 8 + f.wire));
    if (f.wire === 2) parts.push(varint(f.body.length));
    parts.push(f.body);
  }
  return Buffer.concat(parts);
}

const packed = (ns: number[]) => Buffer.concat(ns.map(varint));
const msg = (fs: Field[]) => encode(fs);
const f2 = (field: number, body: Buffer): Field => ({ field, wire: 2, body });
const f0 = (field: number, n: number): Field => ({ field, wire: 0, body: varint(n) });

/** A long run of continuation bytes ending a varint: what pprof-format decodes with quadratic BigInt shifts. */
const longVarint = (n: number) => Buffer.concat([Buffer.alloc(n, 0x80), Buffer.from([1])]);

const HUGE_IDS = [0, 2 ** 31, 2 ** 32 + 1, 2 ** 53 + 2, 2 ** 63, 2 ** 64 - 1];

/** The most bytes a mutation adds up to (mutate's MAX_BYTES). */
const MAX_OUT = 4 << 20;

/** One structure-aware damage to a (decompressed) pprof. */
export function pprofMutation(r: Rand, bytes: Buffer, ops: string[]): Buffer {
  const fs = parse(bytes);
  if (fs && fs.length) return mutateFields(r, fs, ops);
  ops.push('pprof-unparsed');
  return bytes;
}

/** Gzips a mutated pprof half the time, as pprof files are; now and then as a gzip bomb. */
export function pprofWrap(r: Rand, out: Buffer, ops: string[]): Buffer {
  if (r() < 0.5) {
    if (r() < 0.15) {
      // A gzip bomb: the profile, then members of 1 MB of zeros (about 1 KB each) as a string-table entry.
      const mb = depthOf(r, 8, 400);
      const zeros = gzipSync(Buffer.alloc(1 << 20));
      const head = gzipSync(Buffer.concat([out, varint((6 << 3) | 2), varint(mb << 20)]));
      ops.push(`pprof-gzip-bomb:${mb}MB`);
      return Buffer.concat(([head] as Buffer[]).concat(Array<Buffer>(mb).fill(zeros)));
    }
    ops.push('gzip');
    return gzipSync(out);
  }
  return out;
}

function mutateFields(r: Rand, fs: Field[], ops: string[]): Buffer {
  const of = (field: number) => fs.filter((f) => f.field === field);
  const samples = of(2);
  const locations = of(4);
  switch (int(r, 10)) {
    case 0: {
      // A length (or varint value) with a long run of continuation bytes.
      const n = depthOf(r, 11, 600_000);
      const at = int(r, fs.length + 1);
      const tag = r() < 0.5 ? varint((2 << 3) | 2) : varint((7 << 3) | 0);
      const parts = [encode(fs.slice(0, at)), tag, longVarint(n), encode(fs.slice(at))];
      ops.push(`pprof-long-varint:${n}`);
      return Buffer.concat(parts);
    }
    case 1: {
      // A length past the end of its message, at the top or inside a sample.
      const f = pick(r, fs.filter((x) => x.wire === 2).concat(fs[0]));
      const i = fs.indexOf(f);
      const rest = encode(fs.slice(i + 1));
      const claim = pick(r, [rest.length + f.body.length + 1, 2 ** 31, 2 ** 53]);
      ops.push(`pprof-length-past-end:${claim}`);
      return Buffer.concat([encode(fs.slice(0, i)), varint(f.field * 8 + 2), varint(claim), f.body, rest]);
    }
    case 2: {
      // A wire type the profile never uses (1, 3, 4, 5, 6, 7), at the top or in a nested message.
      const wire = pick(r, [1, 3, 4, 5, 6, 7]);
      const field = int(r, 16);
      if (samples.length && r() < 0.5) {
        const s = pick(r, samples);
        s.body = Buffer.concat([s.body, varint(field * 8 + wire), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8])]);
        ops.push(`pprof-nested-wire:${wire}`);
        return encode(fs);
      }
      ops.push(`pprof-wire:${wire}`);
      return Buffer.concat([encode(fs), varint(field * 8 + wire), Buffer.from([1, 2, 3, 4])]);
    }
    case 3: {
      // Ids out of range: a sample's locations, a line's function, a function's strings.
      const id = pick(r, HUGE_IDS);
      if (samples.length && r() < 0.5) pick(r, samples).body = msg([f2(1, packed([id, 1, id])), f2(2, packed([1, 1]))]);
      else if (locations.length) pick(r, locations).body = msg([f0(1, 1), f2(4, msg([f0(1, id), f0(2, id)]))]);
      else fs.push(f2(5, msg([f0(1, 1), f0(2, id), f0(4, id)])));
      ops.push(`pprof-id:${id}`);
      return encode(fs);
    }
    case 4: {
      // Locations of many inlined lines, listed many times a sample: frames multiply.
      const lines = depthOf(r, 10, 20000);
      const refs = depthOf(r, 10, 20000);
      const line = msg([f0(1, 1), f0(2, 7)]);
      const lineField = Buffer.concat([varint((4 << 3) | 2), varint(line.length), line]);
      const loc = Buffer.concat([msg([f0(1, 999_999)])].concat(Array<Buffer>(lines).fill(lineField)));
      const smp = msg([f2(1, packed(Array(refs).fill(999_999))), f2(2, packed(Array(Math.max(1, of(1).length)).fill(5)))]);
      const n = 1 + int(r, 50);
      ops.push(`pprof-inlined:${lines}x${refs}x${n}`);
      return encode(fs.concat([f2(4, loc)], Array<Field>(n).fill(f2(2, smp))));
    }
    case 5: {
      // One sample with a very deep stack of existing locations.
      const depth = depthOf(r, 100, 200_000);
      const ids = locations.length ? locations.map((_, i) => i + 1) : [1];
      ops.push(`pprof-deep-sample:${depth}`);
      return encode([
        ...fs,
        f2(2, msg([f2(1, packed(Array.from({ length: depth }, (_, k) => ids[k % ids.length]))), f2(2, packed([1, 1]))])),
      ]);
    }
    case 6: {
      // Extreme sample values and counts.
      const v = pick(r, [2 ** 63, 2 ** 64 - 1, 2 ** 53 + 1, 0]);
      for (const s of samples) if (r() < 0.3) s.body = msg([...(parse(s.body) ?? []).filter((x) => x.field !== 2), f2(2, packed([v, v]))]);
      ops.push(`pprof-values:${v}`);
      return encode(fs);
    }
    case 7: {
      // The string table: its first entry not empty, entries dropped, or many more.
      const strings = of(6);
      const k = int(r, 3);
      if (k === 0 && strings.length) strings[0].body = Buffer.from('not-empty');
      else if (k === 1) fs = fs.filter((f) => f.field !== 6 || r() < 0.3);
      else fs = fs.concat(Array.from({ length: depthOf(r, 100, 200_000) }, (_, i) => f2(6, Buffer.from(`s${i}`))));
      ops.push(`pprof-strings:${k}`);
      return encode(fs);
    }
    case 8: {
      // Fields shuffled, duplicated or dropped wholesale.
      const k = int(r, 3);
      if (k === 0) fs.sort(() => r() - 0.5);
      else if (k === 1) fs = fs.concat(fs.slice(0, int(r, fs.length)));
      else fs = fs.filter(() => r() < 0.7);
      ops.push(`pprof-fields:${k}`);
      return encode(fs);
    }
    default: {
      // Many samples (the element count) or many mappings.
      const s = samples.length ? pick(r, samples) : f2(2, msg([f2(1, packed([1])), f2(2, packed([1]))]));
      // Within the input cap: a stacked round's big sample times 400 000 once made 8.5 GB (the fuzzer's own crash).
      const n = Math.min(depthOf(r, 1000, 400_000), Math.floor(MAX_OUT / (s.body.length + 6)));
      ops.push(`pprof-many-samples:${n}`);
      return encode(fs.concat(Array<Field>(n).fill(s)));
    }
  }
}

// --- .heapprofile ---

interface HeapNode {
  callFrame?: unknown;
  selfSize?: unknown;
  id?: number;
  children?: HeapNode[];
}

/** Every node of a heap tree (iteratively: the mutated trees are deep). */
function nodesOf(head: HeapNode): HeapNode[] {
  const out: HeapNode[] = [];
  const todo = [head];
  while (todo.length && out.length < 100_000) {
    const n = todo.pop()!;
    if (!n || typeof n !== 'object') continue;
    out.push(n);
    if (Array.isArray(n.children)) for (const c of n.children) todo.push(c);
  }
  return out;
}

/** Deep JSON nesting written as text: JSON.stringify itself recurses. */
function chainText(node: HeapNode, depth: number): string {
  const { children: _c, ...rest } = node;
  const one = JSON.stringify({ ...rest, selfSize: 512 }).slice(0, -1) + ',"children":[';
  return one.repeat(depth) + ']}'.repeat(depth);
}

/** One damage to a `.heapprofile`: a deep chain, huge or non-finite sizes, a shared node, a bad head. */
export function heapMutation(r: Rand, json: unknown, ops: string[]): string {
  const doc = structuredClone(json) as { head: HeapNode };
  const nodes = nodesOf(doc.head);
  switch (int(r, 5)) {
    case 0:
    case 1: {
      const depth = depthOf(r, 100, 60_000);
      const at = pick(r, nodes);
      const marker = '__chain__';
      at.children = [...(at.children ?? []), marker as unknown as HeapNode];
      ops.push(`heap-deep-chain:${depth}`);
      return JSON.stringify(doc).replace(`"${marker}"`, chainText(pick(r, nodes), depth));
    }
    case 2: {
      const v = pick(r, [1e308, 1.7976931348623157e308, 2 ** 53, -1e308, 1e21]);
      for (const n of nodes) if (r() < 0.3) n.selfSize = v;
      ops.push(`heap-self:${v}`);
      return JSON.stringify(doc);
    }
    case 3: {
      // Many children on one node (wide rather than deep).
      const n = depthOf(r, 100, 100_000);
      const at = pick(r, nodes);
      const proto = pick(r, nodes);
      at.children = Array.from({ length: n }, (_, i) => ({ callFrame: proto.callFrame, selfSize: i, id: 1e6 + i, children: [] }));
      ops.push(`heap-wide:${n}`);
      return JSON.stringify(doc);
    }
    default: {
      const k = int(r, 3);
      if (k === 0) (doc as { head: unknown }).head = pick(r, [null, 1, 'x', [], {}]);
      else if (k === 1) pick(r, nodes).callFrame = pick(r, [null, 1, { functionName: 5, url: {}, lineNumber: 1e308 }]);
      else pick(r, nodes).children = pick(r, [null, 'x', [null, 1, 'y'], {}]) as HeapNode[];
      ops.push(`heap-shape:${k}`);
      return JSON.stringify(doc);
    }
  }
}
