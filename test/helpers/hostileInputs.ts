// Inputs a repository could ship to exhaust memory or time (issue 37), each beside an ordinary one of the
// same size for a ratio: pprof bombs and varints, deep heap profiles, V8 logs with huge code sizes.
import { gzipSync } from 'node:zlib';
import { Profile as PprofProfile, StringTable } from 'pprof-format';

import { v8logNormal } from './hostile';

const hex = (n: number) => `0x${n.toString(16)}`;

/** A pprof with `fns` functions, `locs` locations of `linesPerLoc` (inlined) lines and `samples` samples of `depth` location ids. */
export function pprofBytes(o: { fns: number; locs: number; linesPerLoc: number; samples: number; depth: number; stride?: number }): Buffer {
  const st = new StringTable();
  const s = (x: string) => st.dedup(x);
  const p = new PprofProfile({
    sampleType: [{ type: s('cpu'), unit: s('nanoseconds') }],
    function: Array.from({ length: o.fns }, (_, i) => ({
      id: i + 1,
      name: s(`fn${i}`),
      systemName: s(`fn${i}`),
      filename: s(`/srv/app/f${i % 50}.js`),
      startLine: 1 + i,
    })),
    location: Array.from({ length: o.locs }, (_, i) => ({
      id: i + 1,
      line: Array.from({ length: o.linesPerLoc }, (_, k) => ({ functionId: 1 + ((i * 7 + k) % o.fns), line: 1 + k })),
    })),
    sample: Array.from({ length: o.samples }, (_, i) => ({
      locationId: Array.from({ length: o.depth }, (_, k) => 1 + ((i * (o.stride ?? 1) + k) % o.locs)),
      value: [1_000_000 + i],
    })),
    stringTable: st,
  });
  return Buffer.from(p.encode());
}

/** A 15 KB-class `.pb.gz` whose locations hold 1 000 inlined lines each, listed 1 000 times a sample: billions of frames. */
export const pprofInlinedBomb = () => gzipSync(pprofBytes({ fns: 200, locs: 20, linesPerLoc: 1000, samples: 2000, depth: 1000 }));

/**
 * A `.pb.gz` of a few dozen KB whose samples each stop somewhere down one 1 000-frame chain and end in one of
 * 24 leaf functions: a few thousand distinct stacks hundreds of frames deep, few call tree nodes, but every
 * stack written whole (folded) runs to hundreds of MB.
 */
export function pprofDeepDistinct(samples = 8000, depth = 1000, leaves = 24): Buffer {
  const st = new StringTable();
  const s = (x: string) => st.dedup(x);
  // The chain's frames cycle through 100 functions (recursion through a router), so each id is one varint byte.
  const cycle = 100;
  const fns = cycle + leaves;
  const p = new PprofProfile({
    sampleType: [{ type: s('cpu'), unit: s('nanoseconds') }],
    function: Array.from({ length: fns }, (_, i) => ({
      id: i + 1,
      name: s(i < cycle ? `handler${i}` : `leaf${i - cycle}`),
      systemName: s(`fn${i}`),
      filename: s(`/srv/app/routes/r${i % 50}.js`),
      startLine: 1 + i,
    })),
    location: Array.from({ length: fns }, (_, i) => ({ id: i + 1, line: [{ functionId: i + 1, line: 1 + i }] })),
    sample: Array.from({ length: samples }, (_, i) => {
      const d = depth - (i % depth);
      // Leaf first, as pprof lists them: the leaf, then the chain from depth d up to its root.
      const leaf = cycle + 1 + (Math.floor(i / depth) % leaves);
      return { locationId: [leaf, ...Array.from({ length: d }, (_, k) => 1 + ((d - 1 - k) % cycle))], value: [1_000_000] };
    }),
    stringTable: st,
  });
  return gzipSync(Buffer.from(p.encode()));
}

/** An ordinary `.pb.gz` of about `bytes` (gzipped): varied samples of modest depth. */
export function pprofNormal(bytes: number): Buffer {
  let samples = 64;
  for (;;) {
    const b = gzipSync(pprofBytes({ fns: 400, locs: 2000, linesPerLoc: 1, samples, depth: 24, stride: 37 }));
    if (b.length >= bytes) return b;
    samples = Math.ceil(samples * Math.max(1.1, bytes / b.length));
  }
}

/**
 * A gzip bomb: a valid pprof start whose string table then holds `inflatedMb` MB of zeros, written as
 * repeated gzip members of 1 MB of zeros each (about 1 KB compressed apiece).
 */
export function pprofGzipBomb(inflatedMb = 1024): Buffer {
  const st = new StringTable();
  const head = Buffer.from(
    new PprofProfile({ sampleType: [{ type: st.dedup('cpu'), unit: st.dedup('nanoseconds') }], stringTable: st }).encode(),
  );
  const len = inflatedMb << 20;
  const lenBytes: number[] = [];
  for (let v = len; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      lenBytes.push(v);
      break;
    }
    lenBytes.push(v % 128 | 0x80);
  }
  const first = gzipSync(Buffer.concat([head, Buffer.from([(6 << 3) | 2, ...lenBytes])]));
  const zeros = gzipSync(Buffer.alloc(1 << 20));
  return Buffer.concat([first, ...Array<Buffer>(inflatedMb).fill(zeros)]);
}

/** A `.pb.gz` whose first sample's length varint has `count` continuation bytes (pprof-format decodes it with quadratic BigInt shifts). */
export function pprofLongVarint(count = 560_000): Buffer {
  const st = new StringTable();
  const head = Buffer.from(
    new PprofProfile({ sampleType: [{ type: st.dedup('cpu'), unit: st.dedup('nanoseconds') }], stringTable: st }).encode(),
  );
  const tail = Buffer.alloc(count + 2, 0x80);
  tail[0] = (2 << 3) | 2;
  tail[tail.length - 1] = 0x01;
  return gzipSync(Buffer.concat([head, tail]));
}

interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: HeapNode[];
}
const heapNode = (id: number, i: number, selfSize: number): HeapNode => ({
  id,
  callFrame: { functionName: `f${i}`, url: `file:///app/m${i % 100}.js`, lineNumber: i % 5000, columnNumber: 2 },
  selfSize,
  children: [],
});

/** A `.heapprofile` whose tree is one chain `depth` deep, each node allocating (selfSize `self`). */
export function heapChain(depth: number, self = 1024): string {
  const head = heapNode(1, 0, 0);
  let at = head;
  for (let d = 1; d <= depth; d++) {
    const n = heapNode(d + 1, d, self);
    at.children.push(n);
    at = n;
  }
  // JSON.stringify recurses: build the text by hand so the test itself survives the depth.
  const parts: string[] = [];
  const close: string[] = [];
  for (let n: HeapNode | undefined = head; n; n = n.children[0]) {
    const { children, ...rest } = n;
    parts.push(JSON.stringify(rest).slice(0, -1) + ',"children":[');
    close.push(']}');
    if (!children.length) break;
  }
  return `{"head":${parts.join('')}${close.join('')},"samples":[]}`;
}

/** A `.heapprofile` of `count` nodes, a bushy tree a few levels deep (the same size as a chain of `count`). */
export function heapFlat(count: number, self = 1024): string {
  const head = heapNode(1, 0, 0);
  const nodes = [head];
  for (let i = 1; i <= count; i++) {
    const n = heapNode(i + 1, i, self);
    nodes[Math.floor((i - 1) / 8)].children.push(n);
    nodes.push(n);
  }
  return JSON.stringify({ head, samples: [] });
}

/**
 * A V8 log of about 1 MB of ordinary code and ticks, then `count` code objects each claiming `size`
 * bytes (64 MiB: the cap V8 logs are read with) with a tick in each; `size` 256 gives the ordinary twin.
 */
export function v8logCodeSizes(count: number, size = 64 << 20): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(
      `code-creation,JS,10,${100 + i},${hex(0x10000000 + i * 0x4000000)},${size},work${i} /app/w.js:${1 + i}:3,${hex(0x90000 + i * 16)},~`,
    );
  for (let i = 0; i < count; i++) lines.push(`tick,${hex(0x10000010 + i * 0x4000000)},${2000 + i},0,0x0,0`);
  return v8logNormal(1 << 20) + lines.join('\n') + '\n';
}
