// Mutations of real profile files: byte-level damage, line and field shuffles, hostile numbers and
// structure. Deterministic from (seed, case number), so any case can be made again.
import { specialFileMutation } from './specialFiles';

export type SeedFormat = 'v8log' | 'cpuprofile' | 'perf' | 'folded';

export interface Seed {
  name: string;
  format: SeedFormat;
  bytes: Buffer;
}

/** mulberry32: small, fast and good enough to pick mutations. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];
/** Log-uniform in [lo, hi): mostly modest depths, now and then past the JS call stack. */
const depthOf = (r: Rand, lo: number, hi: number) => Math.floor(lo * Math.pow(hi / lo, r()));

/** Cap on a mutated input, so a case tests robustness rather than raw throughput. */
const MAX_BYTES = 4 << 20;

const HOSTILE_NUMBERS = [
  '99999999999999999999999999',
  '1e308',
  '1e999',
  '-1e999',
  '-1',
  '-2147483649',
  '-99999',
  'NaN',
  'Infinity',
  '0',
  '-0',
  '0x',
  '0xffffffffffffffffffffffff',
  '4294967296',
  '9007199254740993',
  '1.5',
  '.',
  '',
];

export const HOSTILE_TEXT = [
  '<img src=x onerror=alert(1)>',
  '</script><script>alert(1)</script>',
  'javascript:alert(1)',
  '한글 日本語 🔥',
  '\u0000\u0001\u001b[31m\u007f',
  '\r',
  '\ufffd\ud800',
  '"\\',
  ',,,,',
  ';;;',
  '\t(',
  ')',
];

/** Bytes as a string of code units 0–255, so line and field edits never re-encode anything. */
const bin = (b: Buffer) => b.toString('latin1');
const unbin = (s: string) => Buffer.from(s, 'latin1');
const utf8bin = (s: string) => bin(Buffer.from(s, 'utf8'));

function lines(s: string): string[] {
  return s.split('\n');
}

function separators(format: SeedFormat): RegExp {
  if (format === 'v8log') return /,/;
  if (format === 'folded') return /;| /;
  if (format === 'perf') return /\s+/;
  return /,/;
}

const NUMBER = /0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function replaceNumber(r: Rand, s: string): string {
  const hits = [...s.matchAll(NUMBER)];
  if (!hits.length) return s;
  const m = pick(r, hits);
  return s.slice(0, m.index) + pick(r, HOSTILE_NUMBERS) + s.slice(m.index! + m[0].length);
}

/** A line holding a deep stack in the seed's own syntax, built from one of its frames. */
function deepStack(r: Rand, format: SeedFormat, s: string): string {
  const depth = depthOf(r, 100, 30000);
  const ls = lines(s);
  if (format === 'folded') {
    const frame = (pick(r, ls).split(';')[1] ?? 'f').replace(/ \d+$/, '');
    return `${Array(depth).fill(frame).join(';')} 1`;
  }
  if (format === 'perf') {
    const header = ls.find((l) => /^\S.*:\s*$/.test(l)) ?? 'node 1/1 1.000000: 1 cpu-clock:';
    const frame = ls.find((l) => /^\t/.test(l)) ?? '\t1000 f (/x)';
    return `${header}\n${Array(Math.min(depth, 20000)).fill(frame).join('\n')}\n`;
  }
  if (format === 'v8log') {
    const tick = ls.find((l) => l.startsWith('tick,')) ?? 'tick,0x1,1,0,0x0,0';
    const addr = tick.split(',')[1] ?? '0x1';
    return `${tick},${Array(depth).fill(addr).join(',')}`;
  }
  return s;
}

function textMutation(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const ls = lines(s);
  const li = () => int(r, ls.length);
  const kind = int(r, 16);
  switch (kind) {
    case 0: {
      ops.push('truncate');
      return s.slice(0, int(r, s.length + 1));
    }
    case 1: {
      // Cut inside a multi-byte UTF-8 sequence when there is one.
      const starts: number[] = [];
      for (let i = 0; i < s.length && starts.length < 1000; i++) if (s.charCodeAt(i) >= 0xc0) starts.push(i);
      ops.push('truncate-mid-utf8');
      return starts.length ? s.slice(0, pick(r, starts) + 1) : s.slice(0, int(r, s.length + 1));
    }
    case 2: {
      const n = 1 + int(r, 8);
      const a = s.split('');
      for (let k = 0; k < n && a.length; k++) a[int(r, a.length)] = String.fromCharCode(int(r, 256));
      ops.push(`flip-bytes:${n}`);
      return a.join('');
    }
    case 3: {
      const n = 1 + int(r, Math.max(1, ls.length >> 3));
      for (let k = 0; k < n && ls.length; k++) ls.splice(li(), 1);
      ops.push(`drop-lines:${n}`);
      return ls.join('\n');
    }
    case 4: {
      const i = li();
      const times = Math.min(1 + int(r, r() < 0.1 ? 5000 : 4), Math.ceil(MAX_BYTES / (ls[i].length + 1)));
      ls.splice(i, 0, ...Array(times).fill(ls[i]));
      ops.push(`dup-line:${times}`);
      return ls.join('\n');
    }
    case 5: {
      const i = li();
      const j = li();
      [ls[i], ls[j]] = [ls[j], ls[i]];
      ops.push('swap-lines');
      return ls.join('\n');
    }
    case 6: {
      // Shuffle a window of lines: records out of order, samples before their code.
      const i = li();
      const w = ls.slice(i, i + 2 + int(r, 50));
      for (let k = w.length - 1; k > 0; k--) {
        const j = int(r, k + 1);
        [w[k], w[j]] = [w[j], w[k]];
      }
      ls.splice(i, w.length, ...w);
      ops.push('shuffle-lines');
      return ls.join('\n');
    }
    case 7:
    case 8: {
      const i = li();
      const sep = separators(format);
      const glue = (ls[i].match(sep) ?? [','])[0];
      const fields = ls[i].split(sep);
      const a = int(r, fields.length);
      const b = int(r, fields.length);
      if (kind === 7) {
        fields.splice(a, 1);
        ops.push('drop-field');
      } else {
        [fields[a], fields[b]] = [fields[b], fields[a]];
        ops.push('swap-fields');
      }
      ls[i] = fields.join(glue);
      return ls.join('\n');
    }
    case 9: {
      const i = li();
      ls[i] = replaceNumber(r, ls[i]);
      ops.push('hostile-number');
      return ls.join('\n');
    }
    case 10: {
      const i = li();
      const t = utf8bin(pick(r, HOSTILE_TEXT));
      const at = int(r, ls[i].length + 1);
      ls[i] = ls[i].slice(0, at) + t + ls[i].slice(at);
      ops.push('hostile-text');
      return ls.join('\n');
    }
    case 11: {
      ls.splice(li(), 0, deepStack(r, format, s));
      ops.push('deep-stack');
      return ls.join('\n');
    }
    case 12: {
      ops.push('crlf');
      return s.replace(/\n/g, '\r\n');
    }
    case 13: {
      const i = li();
      ls[i] = ls[i] + ls[i].repeat(Math.min(1 + int(r, 200), Math.ceil(MAX_BYTES / (ls[i].length + 1))));
      ops.push('long-line');
      return ls.join('\n');
    }
    case 14: {
      const i = li();
      ls[i] = '';
      ops.push('blank-line');
      return ls.join('\n');
    }
    default: {
      // Every number on a line at once, the way a corrupted writer would produce them.
      const i = li();
      const v = pick(r, HOSTILE_NUMBERS);
      ls[i] = ls[i].replace(NUMBER, v);
      ops.push(`all-numbers:${v}`);
      return ls.join('\n');
    }
  }
}

const HOSTILE_VALUES: unknown[] = [1e308, -1, -1e308, 2 ** 53 + 1, 0, null, 'NaN', 'x', [], {}, true, 'x'.repeat(100000), [[[[[]]]]], 0.5, -0.5];

/** Containers and keys of a JSON value, breadth first, for picking a place to damage. */
function places(root: unknown, limit = 5000): { obj: Record<string, unknown> | unknown[]; key: string | number }[] {
  const out: { obj: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const queue: unknown[] = [root];
  for (let qi = 0; qi < queue.length && out.length < limit; qi++) {
    const v = queue[qi];
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push({ obj: v, key: i });
        queue.push(x);
      });
    } else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        out.push({ obj: v as Record<string, unknown>, key: k });
        queue.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return out;
}

function jsonMutation(r: Rand, json: unknown, ops: string[]): string {
  const doc = structuredClone(json) as { nodes?: { id: number; children?: number[] }[] };
  const ps = places(doc);
  const kind = int(r, 8);
  if (kind === 7 && Array.isArray(doc.nodes) && doc.nodes.length > 1) {
    // A chain as deep as a runaway recursion, or a cycle in the node graph.
    const nodes = doc.nodes;
    if (r() < 0.5) {
      const depth = depthOf(r, 100, 10000);
      const base = nodes.length + 1000;
      const last = nodes[nodes.length - 1];
      last.children = [base];
      for (let d = 0; d < depth; d++) nodes.push({ ...structuredClone(last), id: base + d, children: d + 1 < depth ? [base + d + 1] : [] });
      ops.push(`json-deep-chain:${depth}`);
    } else {
      const a = pick(r, nodes);
      a.children = [...(a.children ?? []), pick(r, nodes).id, a.id];
      ops.push('json-cycle');
    }
    return JSON.stringify(doc);
  }
  if (!ps.length) return JSON.stringify(doc);
  const p = pick(r, ps);
  const o = p.obj as Record<string | number, unknown>;
  if (kind <= 2) {
    o[p.key] = pick(r, HOSTILE_VALUES);
    ops.push(`json-set:${String(p.key)}`);
  } else if (kind === 3) {
    if (Array.isArray(p.obj)) p.obj.splice(p.key as number, 1);
    else delete o[p.key];
    ops.push(`json-delete:${String(p.key)}`);
  } else if (kind === 4 && Array.isArray(p.obj)) {
    const j = int(r, p.obj.length);
    [p.obj[p.key as number], p.obj[j]] = [p.obj[j], p.obj[p.key as number]];
    ops.push('json-swap');
  } else if (kind === 5 && Array.isArray(p.obj)) {
    p.obj.splice(p.key as number, 0, structuredClone(p.obj[p.key as number]));
    ops.push('json-dup');
  } else if (kind === 6) {
    // Deep nesting as text: JSON.stringify itself would recurse that deep.
    const depth = depthOf(r, 100, 100000);
    const marker = '"__deep__"';
    o[p.key] = '__deep__';
    ops.push(`json-deep-nesting:${depth}`);
    return JSON.stringify(doc).replace(marker, '['.repeat(depth) + ']'.repeat(depth));
  } else {
    o[p.key] = pick(r, HOSTILE_TEXT);
    ops.push(`json-hostile-text:${String(p.key)}`);
  }
  return JSON.stringify(doc);
}

const parsedJson = new WeakMap<Buffer, unknown>();

/** Case `n` of seed `seed`: one to three stacked mutations, and what they were. */
export function mutate(s: Seed, fuzzSeed: number, n: number): { bytes: Buffer; ops: string[] } {
  const r = rng((fuzzSeed * 0x9e3779b1) ^ (n * 0x85ebca6b));
  const ops: string[] = [];
  let text = bin(s.bytes);
  const rounds = 1 + int(r, 3);
  for (let k = 0; k < rounds; k++) {
    // One case in 20 of each seed (cases rotate through the seeds) names special files (FIFOs, devices, folders).
    if (k === 0 && (n >> 2) % 20 === 19) text = specialFileMutation(r, s.format, text, ops);
    else if (s.format === 'cpuprofile' && k === 0 && r() < 0.6) {
      let json = parsedJson.get(s.bytes);
      if (json === undefined) parsedJson.set(s.bytes, (json = JSON.parse(s.bytes.toString('utf8'))));
      text = utf8bin(jsonMutation(r, json, ops));
    } else text = textMutation(r, s.format, text, ops);
    if (text.length > MAX_BYTES) {
      text = text.slice(0, MAX_BYTES);
      ops.push('capped');
    }
  }
  return { bytes: unbin(text), ops };
}
