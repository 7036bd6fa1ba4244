// Cross-mode agreement, the oracle for JavaScript naming: the functions V8 itself charges in cpu-prof mode must be
// found at the same file:line, with a similar share, in the modes that name frames by other means (prof, perf).
import { fileURLToPath } from 'node:url';

/** The `.cpuprofile` shape `node-flame report <run> --format cpuprofile` writes (a run's processes as levels). */
export interface CpuProfileLike {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples: number[];
}

export interface JsLine {
  /** file:line:column, 1-based, file as a path (the column tells apart the functions of a minified line). */
  key: string;
  names: Set<string>;
  samples: number;
}

/**
 * Samples charged to JavaScript the way cpu-prof charges them: each sample to its innermost frame that has a
 * file (native, builtin and kernel frames above it count for it), so modes that see inside native code compare.
 * Samples with no JavaScript frame, and garbage collection, are left out of `js`.
 */
export interface JsSelf {
  all: number;
  js: number;
  lines: Map<string, JsLine>;
  /** Threads (the export's `thread …` levels, or the whole profile when it has none) that ran JavaScript. */
  jsThreads: number;
  /** Those threads' names, with their JavaScript samples and the first such sample's innermost function. */
  jsThreadNames: string[];
}

const GC = /^\((garbage collector|gc)\)$|^GC\b|^v8::internal::Heap::/;

export function pathOfUrl(url: string): string {
  return url.startsWith('file://') ? fileURLToPath(url) : url;
}

export function jsSelf(p: CpuProfileLike): JsSelf {
  const parent = new Map<number, number>();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Per node: whether GC is on its stack, and its nearest thread level.
  const memo = new Map<number, { gc: boolean; thread?: number }>();
  const info = (id: number): { gc: boolean; thread?: number } => {
    const m = memo.get(id);
    if (m) return m;
    const n = byId.get(id)!;
    const up = parent.has(id) ? info(parent.get(id)!) : { gc: false };
    const f = n.callFrame;
    const r = {
      gc: up.gc || GC.test(f.functionName),
      thread: f.functionName.startsWith('thread ') && !f.url ? id : up.thread,
    };
    memo.set(id, r);
    return r;
  };
  // Innermost JS needs the walk from the leaf: the leaf's own frame wins over its callers'.
  const innermost = new Map<number, number | undefined>();
  const jsOf = (id: number): number | undefined => {
    if (innermost.has(id)) return innermost.get(id);
    const n = byId.get(id)!;
    const r = n.callFrame.url ? id : parent.has(id) ? jsOf(parent.get(id)!) : undefined;
    innermost.set(id, r);
    return r;
  };
  const lines = new Map<string, JsLine>();
  const threads = new Set<number | undefined>();
  const perThread = new Map<number | undefined, { samples: number; first: string }>();
  let js = 0;
  for (const s of p.samples) {
    const i = info(s);
    const j = jsOf(s);
    if (j === undefined || i.gc) continue;
    const f = byId.get(j)!.callFrame;
    const key = `${pathOfUrl(f.url)}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    const l = lines.get(key) ?? { key, names: new Set<string>(), samples: 0 };
    l.names.add(f.functionName);
    l.samples++;
    lines.set(key, l);
    threads.add(i.thread);
    const t = perThread.get(i.thread) ?? { samples: 0, first: `${f.functionName} ${key}` };
    t.samples++;
    perThread.set(i.thread, t);
    js++;
  }
  const jsThreadNames = [...perThread].map(
    ([id, t]) => `${id === undefined ? '(whole profile)' : byId.get(id)!.callFrame.functionName}: ${t.samples} (${t.first})`,
  );
  return { all: p.samples.length, js, lines, jsThreads: threads.size, jsThreadNames };
}

export interface AgreementRow {
  key: string;
  name: string;
  /** Share of all cpu-prof samples (what selects the row), and of JavaScript samples in each mode. */
  cpuShareOfAll: number;
  cpuShare: number;
  otherShare: number;
  found: boolean;
  agrees: boolean;
}

export interface Agreement {
  rows: AgreementRow[];
  found: number;
  agree: number;
  /** agree / rows, 1 when cpu-prof had no function at or above the threshold. */
  ratio: number;
}

/**
 * Tolerance on shares of JavaScript samples: |other − cpu| ≤ max(ABS, REL × cpu). Chosen from the noise floor
 * `npm run bench corpus` prints (a second cpu-prof run against the first): on the batch programs the largest
 * differences were 3.1 points (tsc) and 1.6 points (prettier), 6.8 points (53 %) on mocha's workers; a server under
 * autocannon differs from itself by up to 5.7 points (68 %), so its shares are reported, not asserted.
 */
export const AGREEMENT_TOLERANCE = { abs: 0.03, rel: 0.5 };

export function agreement(cpu: JsSelf, other: JsSelf, minShare = 0.01, tol = AGREEMENT_TOLERANCE): Agreement {
  const rows: AgreementRow[] = [];
  for (const l of cpu.lines.values()) {
    const cpuShareOfAll = cpu.all ? l.samples / cpu.all : 0;
    if (cpuShareOfAll < minShare) continue;
    const o = other.lines.get(l.key);
    const cpuShare = cpu.js ? l.samples / cpu.js : 0;
    const otherShare = o && other.js ? o.samples / other.js : 0;
    const found = !!o;
    const agrees = found && Math.abs(otherShare - cpuShare) <= Math.max(tol.abs, tol.rel * cpuShare);
    rows.push({ key: l.key, name: [...l.names].join('|'), cpuShareOfAll, cpuShare, otherShare, found, agrees });
  }
  rows.sort((a, b) => b.cpuShare - a.cpuShare);
  const found = rows.filter((r) => r.found).length;
  const agree = rows.filter((r) => r.agrees).length;
  return { rows, found, agree, ratio: rows.length ? agree / rows.length : 1 };
}
