/**
 * The one merge of CPU profile pieces taken one after another in the same process: a live run's chunks (the
 * preload's, and the reader's of `live-<pid>.jsonl`) and an attach session's parts alike. Each piece is V8's own
 * `Profiler.Profile` of the time since the last stop; the merge is incremental, so a live reader adds each new
 * piece as it arrives and the profile at the end is exactly the union the viewer showed.
 */

/** The `Profiler.Profile` the inspector returns, as saved in `.cpuprofile` files. */
export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  /** 0-based. */
  columnNumber: number;
}

export interface CpuProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
  /** 1-based lines. */
  positionTicks?: { line: number; ticks: number }[];
  deoptReason?: string;
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** µs on V8's monotonic clock (the same clock in every process: see runClock.ts). */
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const frameKey = (cf: CallFrame) => `${cf.functionName}\u0000${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.scriptId}`;

const ROOT_NAME = '(root)';

/**
 * Pieces merged in order into one profile: a node is the same node when its call frame and its parent's are (the
 * ids of each piece are its own), and samples keep their absolute times. Where the two merges this replaces
 * differed, the choice and why:
 * - Hit counts are counted from the samples kept, not summed from each piece's `hitCount`: a sample dropped below
 *   must not stay counted, and the importer's figures come from the samples, so the two always agree. A piece
 *   without `samples` (an old format) gives its `hitCount`s instead, with no times to place.
 * - `deoptReason` is kept (the first one seen): the deopt finding reads it, and a merge must not lose it.
 * - One root: V8 gives each piece one `(root)`, and every piece's `(root)` is the merged one. A parentless node of
 *   another name (not V8's, but a file may hold anything) hangs under that root rather than being dropped.
 * - A sample at or before the last one kept from an earlier piece is dropped: a piece overlapping the one before
 *   (a reader that read a chunk twice) adds nothing. Within one piece V8's order is kept even when a time delta is
 *   negative (V8 writes such samples), so no sample of a piece taken once is ever lost.
 */
/** Number of samples, from `samples` when present, else the nodes' hit counts. */
export function sampleCount(p: CpuProfile): number {
  return p.samples?.length ?? p.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
}

export class CpuProfileMerger {
  private readonly nodes: CpuProfileNode[] = [
    { id: 1, callFrame: { functionName: ROOT_NAME, url: '', lineNumber: -1, columnNumber: -1, scriptId: '0' }, hitCount: 0, children: [] },
  ];
  private readonly index = new Map<string, number>();
  private readonly lines = new Map<number, Map<number, number>>();
  private samples: number[] = [];
  private times: number[] = [];
  private startTime: number | undefined;
  private endTime: number | undefined;
  /** Pieces added (a malformed one is not counted). */
  chunks = 0;

  get sampleCount(): number {
    return this.samples.length;
  }

  add(piece: CpuProfile): void {
    if (!piece || !Array.isArray(piece.nodes) || !piece.nodes.length) return;
    this.chunks++;
    const byId = new Map(piece.nodes.map((n) => [n.id, n]));
    const childIds = new Set(piece.nodes.flatMap((n) => n.children ?? []));
    const mapped = new Map<number, number>();
    const queue: number[] = [];
    for (const r of piece.nodes.filter((n) => !childIds.has(n.id))) {
      if (r.callFrame?.functionName === ROOT_NAME) {
        mapped.set(r.id, 1);
        queue.push(r.id);
      } else this.place(r, 1, mapped, queue);
    }
    // Breadth first with an explicit queue: the profiled app's deep recursion must not overflow this stack.
    for (let i = 0; i < queue.length; i++) {
      const parent = mapped.get(queue[i])!;
      for (const c of byId.get(queue[i])?.children ?? []) {
        const n = byId.get(c);
        if (n && !mapped.has(c)) this.place(n, parent, mapped, queue);
      }
    }
    const samples = piece.samples;
    if (!samples) {
      for (const [from, to] of mapped) this.nodes[to - 1].hitCount! += byId.get(from)?.hitCount ?? 0;
    } else {
      const deltas = piece.timeDeltas ?? [];
      let t = piece.startTime;
      const last = this.times.length ? this.times[this.times.length - 1] : -Infinity;
      for (let i = 0; i < samples.length; i++) {
        t += deltas[i] ?? 0;
        const id = mapped.get(samples[i]);
        if (id === undefined || t <= last) continue;
        this.samples.push(id);
        this.times.push(t);
        this.nodes[id - 1].hitCount!++;
      }
    }
    this.startTime = Math.min(this.startTime ?? piece.startTime, piece.startTime);
    this.endTime = Math.max(this.endTime ?? piece.endTime, piece.endTime);
  }

  private place(n: CpuProfileNode, parent: number, mapped: Map<number, number>, queue: number[]): void {
    const key = `${parent}\u0001${frameKey(n.callFrame)}`;
    let id = this.index.get(key);
    if (id === undefined) {
      id = this.nodes.length + 1;
      this.index.set(key, id);
      this.nodes.push({ id, callFrame: { ...n.callFrame }, hitCount: 0, children: [] });
      this.nodes[parent - 1].children!.push(id);
    }
    const m = this.nodes[id - 1];
    if (n.deoptReason && !m.deoptReason) m.deoptReason = n.deoptReason;
    mapped.set(n.id, id);
    for (const pt of n.positionTicks ?? []) {
      let lines = this.lines.get(id);
      if (!lines) this.lines.set(id, (lines = new Map()));
      lines.set(pt.line, (lines.get(pt.line) ?? 0) + pt.ticks);
    }
    queue.push(n.id);
  }

  /** The pieces so far as one `.cpuprofile`. */
  profile(): CpuProfile {
    const start = this.startTime ?? 0;
    const timeDeltas = this.times.map((t, i) => t - (i ? this.times[i - 1] : start));
    // Copies: a reader may normalise what it is given, and the merge goes on.
    const nodes = this.nodes.map((n) => {
      const lines = this.lines.get(n.id);
      return {
        ...n,
        children: [...n.children!],
        ...(lines ? { positionTicks: [...lines].map(([line, ticks]) => ({ line, ticks })) } : {}),
      };
    });
    return { nodes, startTime: start, endTime: this.endTime ?? start, samples: [...this.samples], timeDeltas };
  }
}

/** Pieces of one process's profile, taken one after another, as one profile (see CpuProfileMerger). */
export function mergeCpuProfiles(parts: CpuProfile[]): CpuProfile {
  if (parts.length === 0) throw new Error('no profile parts');
  const m = new CpuProfileMerger();
  for (const p of parts) m.add(p);
  return m.profile();
}
