import * as l10n from '@vscode/l10n';
import type { Frame } from '../model';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/** A synchronous call and the asynchronous form to use instead. */
export interface Blocking {
  call: string;
  instead: string;
  /** JSON work blocks only when big: it has a threshold of its own. */
  json?: boolean;
}

// Maps, not object literals: a frame named `constructor` must not find Object.prototype's.
const CRYPTO = new Map([
  ['pbkdf2Sync', 'crypto.pbkdf2'],
  ['scryptSync', 'crypto.scrypt'],
  ['randomFillSync', 'crypto.randomFill'],
  ['generateKeyPairSync', 'crypto.generateKeyPair'],
  ['generateKeySync', 'crypto.generateKey'],
  ['generatePrimeSync', 'crypto.generatePrime'],
  ['hkdfSync', 'crypto.hkdf'],
]);
const CHILD_PROCESS = new Map([
  ['execSync', 'child_process.exec'],
  ['execFileSync', 'child_process.execFile'],
  ['spawnSync', 'child_process.spawn'],
]);
/** zlib's `*Sync` functions are all one wrapper (`syncBufferWrapper` → `zlibBufferSync`); which one it was shows in the native code below. */
const ZLIB_SYNC = new Set(['zlibBufferSync', 'syncBufferWrapper']);
const ZLIB_KINDS: Array<{ test: RegExp; call: string; instead: string }> = [
  {
    test: /^(?:deflate\w*|longest_match|fill_window|compress_block|_tr_\w+|send_tree|build_tree|pqdownheap|crc32\w*|adler32\w*)\b/,
    call: 'zlib.deflateSync',
    instead: 'zlib.deflate',
  },
  { test: /^(?:inflate\w*)\b/, call: 'zlib.inflateSync', instead: 'zlib.inflate' },
  { test: /^Brotli\w*Encode|^BrotliEncoder|^BrotliCompress/, call: 'zlib.brotliCompressSync', instead: 'zlib.brotliCompress' },
  { test: /^Brotli\w*Decode|^BrotliDecoder|^BrotliDecompress/, call: 'zlib.brotliDecompressSync', instead: 'zlib.brotliDecompress' },
];
const ZLIB_NAMED = /^(deflate|inflate|gzip|gunzip|deflateRaw|inflateRaw|unzip|brotliCompress|brotliDecompress)Sync$/;
const ATOMICS_WAIT = /(?:^|\bBuiltin_)AtomicsWait\b/;
const JSON_WORK = /(?:^|\bBuiltin_)Json(Parse|Stringify)\b|\bJsonParser<|\bJsonStringifier::/;

function classify(f: Frame): Blocking | undefined {
  const name = f.name;
  if (f.category === 'node' || f.category === 'app' || f.category === 'dependency') {
    if (f.category === 'node') {
      const crypto = CRYPTO.get(name);
      if (crypto) return { call: `crypto.${name}`, instead: crypto };
      if (ZLIB_SYNC.has(name)) return { call: 'zlib', instead: 'zlib' };
      const z = ZLIB_NAMED.exec(name);
      if (z) return { call: `zlib.${name}`, instead: `zlib.${z[1]}` };
      const child = CHILD_PROCESS.get(name);
      if (child) return { call: `child_process.${name}`, instead: child };
      if (/^(?:node:)?fs$/.test(f.file) && /^[a-z]\w*Sync$/.test(name)) {
        const base = name.slice(0, -4);
        return { call: `fs.${name}`, instead: `fs.promises.${base === 'exists' ? 'access' : base}` };
      }
    }
    return undefined;
  }
  if (ATOMICS_WAIT.test(name)) return { call: 'Atomics.wait', instead: 'Atomics.waitAsync' };
  const j = JSON_WORK.exec(name);
  if (j) {
    const stringify = j[1] === 'Stringify' || name.includes('JsonStringifier');
    return stringify ? { call: 'JSON.stringify', instead: '', json: true } : { call: 'JSON.parse', instead: '', json: true };
  }
  return undefined;
}

/**
 * The outermost calls `classify` knows (and `keep` keeps), at nodes `at` accepts, with what each is: zlib's one
 * wrapper named by the code below it. The event-loop rule and the batch rule read the same calls, on either
 * side of start-up.
 */
export function blockingNodes(
  cx: FindingContext,
  at: (node: number) => boolean,
  keep: (b: Blocking) => boolean = () => true,
): { node: number; kind: Blocking }[] {
  const kinds = new Map<number, Blocking>();
  const nodes = cx.outermost((f, id) => {
    const b = classify(f);
    if (!b || !keep(b)) return false;
    kinds.set(id, b);
    return true;
  });
  return nodes.filter(at).map((node) => {
    const b = kinds.get(cx.tree.frame[node])!;
    return { node, kind: b.call === 'zlib' ? zlibKind(cx, node) : b };
  });
}

/** Which zlib function a `zlibBufferSync` node ran, from the native code below it. */
function zlibKind(cx: FindingContext, node: number): { call: string; instead: string } {
  const weights = ZLIB_KINDS.map(() => 0);
  for (const n of cx.subtree(node)) {
    const self = cx.tree.self[n];
    if (!self) continue;
    const name = cx.frames[cx.tree.frame[n]]?.name ?? '';
    const k = ZLIB_KINDS.findIndex((z) => z.test.test(name));
    if (k >= 0) weights[k] += self;
  }
  const best = weights.indexOf(Math.max(...weights));
  if (weights[best] > 0) return ZLIB_KINDS[best];
  // A `.cpuprofile` has no native frames; the stream class zlib makes for the call (`Deflate`, `Gunzip`) names it.
  for (const n of cx.subtree(node)) {
    const f = cx.frames[cx.tree.frame[n]];
    const cls = f?.category === 'node' ? ZLIB_CLASSES.get(f.name) : undefined;
    if (cls !== undefined) return ZLIB_KINDS[cls];
  }
  return { call: 'zlib.*Sync', instead: 'zlib' };
}

/** zlib's stream classes, as indexes into ZLIB_KINDS. */
const ZLIB_CLASSES = new Map([
  ['Deflate', 0],
  ['DeflateRaw', 0],
  ['Gzip', 0],
  ['Inflate', 1],
  ['InflateRaw', 1],
  ['Gunzip', 1],
  ['Unzip', 1],
  ['BrotliCompress', 2],
  ['BrotliDecompress', 3],
]);

/**
 * Synchronous calls that stop the event loop while a request, timer or other callback runs
 * (start-up code is left alone: nothing else is waiting yet).
 */
export function blockingCalls(cx: FindingContext): Finding[] {
  const groups = new Groups<Blocking & { nodes: number[] }>();
  for (const { node: n, kind: b } of blockingNodes(cx, (node) => !cx.startup[node])) {
    const key = `${b.call}\0${cx.siteKey(n)}`;
    groups.add(key, cx.total[n], n, { ...b, nodes: [] });
    groups.map.get(key)!.data.nodes.push(n);
  }
  const out: Finding[] = [];
  for (const g of groups.values()) {
    const share = cx.share(g.w);
    if (share < (g.data.json ? THRESHOLDS.json : THRESHOLDS.blocking)) continue;
    // One short block (a one-off set-up request) is not a pattern: it must recur, or be long on its own.
    const bursts = cx.bursts(g.data.nodes);
    if (bursts !== undefined && bursts < 2 && g.w * (cx.profile.meta.intervalMs ?? 1) < THRESHOLDS.blockingOnceMs) continue;
    const message = g.data.json
      ? l10n.t(
          '{0} of big data blocks the event loop for {1} of samples here: send or read smaller pieces, stream it, or move it to a worker thread.',
          g.data.call,
          pct(share),
        )
      : l10n.t(
          '{0} blocks the event loop for {1} of samples here: use the asynchronous {2} so other requests and timers keep running.',
          g.data.call,
          pct(share),
          g.data.instead,
        );
    out.push({
      rule: 'blocking-sync',
      severity: share >= THRESHOLDS.blockingWarning ? 'warning' : 'info',
      share,
      message,
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}
