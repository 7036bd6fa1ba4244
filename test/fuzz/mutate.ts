// Mutations of real profile files: byte-level damage, line and field shuffles, hostile numbers and
// structure. Deterministic from (seed, case number), so any case can be made again.
import { specialFileMutation } from './specialFiles';
import { heapMutation, pprofMutation, pprofWrap } from './structureMutations';
import { seededRandom } from '../../src/core/seededRandom';

export type SeedFormat = 'v8log' | 'cpuprofile' | 'perf' | 'folded' | 'pprof' | 'heapprofile';

export interface Seed {
  name: string;
  format: SeedFormat;
  bytes: Buffer;
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

const HOSTILE_VALUES: unknown[] = [
  1e308,
  -1,
  -1e308,
  2 ** 53 + 1,
  0,
  null,
  'NaN',
  'x',
  [],
  {},
  true,
  'x'.repeat(100000),
  [[[[[]]]]],
  0.5,
  -0.5,
];

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

// Shapes that cost time (issue 18): long runs of one character, huge names and lines, chains deeper
// than any window with weight on every level, extreme weights. Each picks its own sizes; the input cap
// (MAX_BYTES) still holds.

/** Largest run, name or line made: 1 MB already takes a quadratic step minutes, and keeps 100 000 cases within an hour. */
const SHAPE_BYTES = 1 << 20;

/** Characters whose long runs made regular expressions retry at every position. */
const RUN_CHARS = [' ', '\t', '/', ':', '(', ')', '[', 'a', '_', '0', '.', '\\', ',', ';', '\u00a0', '#', '?', 'x:1'];
/** Log-uniform run lengths: mostly a few KB, now and then close to the input cap. */
const runLength = (r: Rand) => depthOf(r, 1000, SHAPE_BYTES);

/** A long run of one character inside a line (inside a name, a header, a field). */
function longRun(r: Rand, s: string, ops: string[]): string {
  const ls = lines(s);
  const i = int(r, ls.length);
  const ch = utf8bin(pick(r, RUN_CHARS));
  const len = Math.min(runLength(r), MAX_BYTES - s.length);
  const at = int(r, ls[i].length + 1);
  ls[i] = ls[i].slice(0, at) + ch.repeat(Math.max(1, Math.floor(len / ch.length))) + ls[i].slice(at);
  ops.push(`long-run:U+${ch.charCodeAt(0).toString(16)}x${len}`);
  return ls.join('\n');
}

/** One frame name made huge, in the seed's own syntax, so it is read as a name (and hit by samples). */
function hugeName(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const len = Math.min(depthOf(r, 10000, SHAPE_BYTES), MAX_BYTES - s.length);
  const unit = pick(r, ['x', ' ', 'a b', 'f /a.js:1:2 ', '(', '_']);
  const name = unit.repeat(Math.ceil(len / unit.length)).slice(0, len);
  const ls = lines(s);
  let idx: number[] = [];
  if (format === 'v8log') idx = ls.flatMap((l, k) => (l.startsWith('code-creation,') ? [k] : []));
  else if (format === 'perf') idx = ls.flatMap((l, k) => (l.startsWith('\t') || /^\S/.test(l) ? [k] : []));
  else idx = ls.flatMap((l, k) => (l.trim() ? [k] : []));
  if (!idx.length) return s;
  const i = pick(r, idx);
  const l = ls[i];
  if (format === 'v8log') {
    const f = l.split(',');
    if (f.length > 6) f[6] = `${name.replace(/,/g, ' ')}${r() < 0.5 ? ' /app/x.js:1:1' : ''}`;
    ls[i] = f.join(',');
  } else if (format === 'perf') {
    // A frame's symbol, or the command name of a sample header.
    ls[i] = l.startsWith('\t') ? l.replace(/^(\s*[0-9a-f]+ )/, `$1${name}`) : name + l;
  } else if (format === 'folded') {
    const parts = l.split(';');
    parts[int(r, parts.length)] = name.replace(/;/g, ' ') + (r() < 0.5 ? ' /app/x.js:1:1' : '');
    ls[i] = parts.join(';');
  } else {
    ls[i] = l.replace(/"functionName":"[^"]*"/, `"functionName":"${name.replace(/["\\]/g, ' ')}"`);
  }
  ops.push(`huge-name:${len}`);
  return ls.join('\n');
}

/** One line made megabytes long by repeating it (without line breaks). */
function hugeLine(r: Rand, s: string, ops: string[]): string {
  const ls = lines(s);
  const i = int(r, ls.length);
  const room = MAX_BYTES - s.length;
  const times = Math.max(1, Math.floor(Math.min(room, depthOf(r, 100000, SHAPE_BYTES)) / (ls[i].length + 1)));
  ls[i] = ls[i].repeat(times);
  ops.push(`huge-line:${ls[i].length}`);
  return ls.join('\n');
}

/**
 * A chain deeper than the viewer's window with weight on every level: whatever writes every stack
 * whole (bottom-up trees, folded export) grows with depth squared.
 */
function weightedChain(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const depth = depthOf(r, 1000, format === 'folded' ? 20000 : 60000);
  ops.push(`weighted-chain:${depth}`);
  if (format === 'folded') {
    // Every prefix of one deep stack, each with a weight: what a runaway recursion sampled at every depth looks like.
    const names = Array.from({ length: depth }, (_, k) => `f${k % 97}`);
    let line = '';
    const out: string[] = [];
    let size = s.length;
    for (let k = 0; k < depth && size < MAX_BYTES; k++) {
      line = k ? `${line};${names[k]}` : names[k];
      // Only some prefixes: all of them would be quadratic in the input itself.
      if (k % Math.max(1, Math.floor(depth / 64)) === 0 || k === depth - 1) {
        out.push(`${line} 1`);
        size += line.length + 3;
      }
    }
    return `${s}\n${out.join('\n')}\n`;
  }
  if (format === 'perf') {
    const header = lines(s).find((l) => /^\S.*:\s*$/.test(l)) ?? 'node 1/1 1.000000: 1 cpu-clock:';
    const frames = Array.from(
      { length: Math.min(depth, 30000) },
      (_, k) => `\t    ${(0x7f0000001000 + k * 16).toString(16)} f${k} (/tmp/perf-1.map)`,
    );
    return `${s}\n${header}\n${frames.join('\n')}\n`;
  }
  if (format === 'v8log') {
    const code = Array.from(
      { length: Math.min(depth, 2000) },
      (_, k) =>
        `code-creation,JS,10,100,0x${(0x50000 + k * 64).toString(16)},64,f${k} /a.js:${k + 1}:1,0x${(0x900000 + k * 16).toString(16)},~`,
    );
    const stack = Array.from({ length: depth }, (_, k) => `0x${(0x50010 + (k % 2000) * 64).toString(16)}`).join(',');
    return `${s}\n${code.join('\n')}\ntick,0x50010,5000000,0,0x0,0,${stack}\n`;
  }
  return s;
}

const EXTREME_WEIGHTS = [
  '1e308',
  '9007199254740991',
  '9007199254740993',
  '1.7976931348623157e308',
  '9'.repeat(400),
  '4294967295',
  '1e-320',
];

/** Weights at the edge of what doubles hold, on several lines at once (their sum is the danger). */
function extremeWeights(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const w = pick(r, EXTREME_WEIGHTS);
  const ls = lines(s);
  let n = 0;
  for (let k = 0; k < ls.length; k++) {
    if (r() > 0.3) continue;
    if (format === 'folded' && /\s\d+$/.test(ls[k])) ls[k] = ls[k].replace(/\d+$/, w);
    else if (format === 'perf' && /^\S.*:\s*$/.test(ls[k])) ls[k] = ls[k].replace(/:\s+\d+\s+(\S+:)/, `: ${w} $1`);
    else continue;
    n++;
  }
  ops.push(`extreme-weights:${w.slice(0, 12)}x${n}`);
  return ls.join('\n');
}

/** Many frames of one name at different places (one name, thousands of locations). */
function oneName(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const n = depthOf(r, 1000, 60000);
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    if (format === 'folded') out.push(`main;f /a.js:${k + 1}:1 1`);
    else if (format === 'v8log')
      out.push(
        `code-creation,JS,10,100,0x${(0x4000000 + k * 64).toString(16)},64,f /a.js:${k + 1}:1,0x${(0x9000000 + k * 16).toString(16)},~\ntick,0x${(0x4000010 + k * 64).toString(16)},${6000000 + k},0,0x0,0`,
      );
    else if (format === 'perf')
      out.push(
        `node 1/1 ${(9000 + k / 1000).toFixed(6)}: 1 cpu-clock:\n\t    ${(0x7f0000100000 + k * 16).toString(16)} JS:*f /a.js:${k + 1}:1 (/tmp/perf-1.map)\n`,
      );
  }
  ops.push(`one-name:${n}`);
  const add = out.join('\n');
  return add.length + s.length < MAX_BYTES ? `${s}\n${add}\n` : s;
}

/** One of the time-shape operators for a text seed. */
export function shapeMutation(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  switch (int(r, 6)) {
    case 5:
      return oneName(r, format, s, ops);
    case 0:
      return longRun(r, s, ops);
    case 1:
      return hugeName(r, format, s, ops);
    case 2:
      return hugeLine(r, s, ops);
    case 3:
      return weightedChain(r, format, s, ops);
    default:
      return extremeWeights(r, format, s, ops);
  }
}

/** The same for a `.cpuprofile`: a chain past the window with hit counts all along, extreme hit counts, a huge name. */
export function jsonShapeMutation(r: Rand, json: unknown, ops: string[]): string {
  const doc = structuredClone(json) as {
    nodes?: { id: number; hitCount?: number; callFrame?: { functionName?: string }; children?: number[] }[];
    samples?: number[];
  };
  const nodes = doc.nodes;
  if (!Array.isArray(nodes) || nodes.length < 2) return JSON.stringify(doc);
  const kind = int(r, 3);
  if (kind === 0) {
    const depth = depthOf(r, 1000, 60000);
    const base = nodes.reduce((m, n) => Math.max(m, n.id), 0) + 1;
    const last = nodes[nodes.length - 1];
    last.children = [...(last.children ?? []), base];
    const hits = r() < 0.5 ? 1 : pick(r, [1e308, 2 ** 53 + 2, 1e15]);
    for (let d = 0; d < depth; d++)
      nodes.push({
        id: base + d,
        callFrame: { ...(last.callFrame ?? {}), functionName: `f${d % 50}` },
        hitCount: d + 1 === depth || r() < 0.01 ? hits : 1,
        children: d + 1 < depth ? [base + d + 1] : [],
      });
    // Without a sample list the hit counts are the weights.
    if (r() < 0.7) delete doc.samples;
    ops.push(`json-weighted-chain:${depth}:${hits}`);
  } else if (kind === 1) {
    const v = pick(r, [1e308, Number.MAX_VALUE, 2 ** 53 + 1, 1e300]);
    for (let k = 0; k < 2 + int(r, 3); k++) pick(r, nodes).hitCount = v;
    delete doc.samples;
    ops.push(`json-extreme-hits:${v}`);
  } else {
    const n = pick(r, nodes);
    const len = depthOf(r, 10000, SHAPE_BYTES);
    n.callFrame = { ...(n.callFrame ?? {}), functionName: pick(r, [' ', 'a', '(', 'x:1:']).repeat(len).slice(0, len) };
    ops.push(`json-huge-name:${len}`);
  }
  return JSON.stringify(doc);
}

const parsedJson = new WeakMap<Buffer, unknown>();

/** Case `n` of seed `seed`: one to three stacked mutations, and what they were. */
export function mutate(s: Seed, fuzzSeed: number, n: number): { bytes: Buffer; ops: string[] } {
  const r = seededRandom((fuzzSeed * 0x9e3779b1) ^ (n * 0x85ebca6b));
  const ops: string[] = [];
  let text = bin(s.bytes);
  const rounds = 1 + int(r, 3);
  for (let k = 0; k < rounds; k++) {
    const shape = r() < 0.08;
    // One case in 20 of each seed (cases rotate through the seeds) names special files (FIFOs, devices, folders).
    if (k === 0 && (n >> 2) % 20 === 19) text = specialFileMutation(r, s.format, text, ops);
    else if (s.format === 'pprof' && r() < 0.7) text = bin(pprofMutation(r, unbin(text), ops));
    else if ((s.format === 'cpuprofile' || s.format === 'heapprofile') && k === 0 && r() < 0.6) {
      let json = parsedJson.get(s.bytes);
      if (json === undefined) parsedJson.set(s.bytes, (json = JSON.parse(s.bytes.toString('utf8'))));
      if (s.format === 'heapprofile' && r() < 0.6) text = utf8bin(heapMutation(r, json, ops));
      else text = utf8bin(shape ? jsonShapeMutation(r, json, ops) : jsonMutation(r, json, ops));
    } else text = shape ? shapeMutation(r, s.format, text, ops) : textMutation(r, s.format, text, ops);
    if (text.length > MAX_BYTES) {
      text = text.slice(0, MAX_BYTES);
      ops.push('capped');
    }
  }
  if (s.format === 'pprof' && !text.startsWith('\x1f\x8b')) return { bytes: pprofWrap(r, unbin(text), ops), ops };
  return { bytes: unbin(text), ops };
}
