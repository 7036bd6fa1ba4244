import { join } from 'node:path';
import { replaceFileSync } from '../../core/safeWrite';

/**
 * The live CPU profile of a process: the preload stops and restarts its in-process profile about once a second
 * and appends each piece (a chunk: V8's own `.cpuprofile` of that second) as one line of `live-<pid>.jsonl`.
 * The one merge of chunks below is used by the preload for the process's final `.cpuprofile` and by the reader
 * of a live run alike, so the profile at exit is exactly the union of the chunks the viewer showed.
 */

/** `live-<pid>.jsonl`: one chunk per line, `{"profile": <a .cpuprofile of about a second>}`. */
export function liveChunkFileName(pid: number): string {
  return `live-${pid}.jsonl`;
}

export function liveChunkPid(name: string): number | undefined {
  const m = /^live-(\d+)\.jsonl$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** `<run folder>/live.json`: what the launcher knows of a live run before run.json (its start, its events so far). */
export const LIVE_INFO_FILE = 'live.json';

export interface LiveInfo {
  /** The run's mode: a prof run is watched by reading its tick logs as they grow (V8 writes them as it goes). */
  mode?: string;
  startedAt: string;
  events: { kind: string; at: string; label?: string }[];
}

/** A live run's start and events so far, for the Timeline before run.json is there (liveReader.ts). */
export function writeLiveInfo(runDir: string, info: LiveInfo): void {
  try {
    replaceFileSync(join(runDir, LIVE_INFO_FILE), JSON.stringify(info));
  } catch {
    // a full disk: the live Timeline goes without its markers
  }
}

/** The live reader's word for "nothing since the last read" (and "nothing yet"): the caller keeps what it shows. */
export const NOTHING_NEW = 'no new live chunks';

/** Set by the launcher when the run is watched live (the preload then writes chunks). */
export const LIVE_ENV = 'NODE_FLAME_LIVE';

export interface ChunkCallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
  scriptId: string | number;
}

export interface ChunkNode {
  id: number;
  callFrame: ChunkCallFrame;
  hitCount?: number;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}

export interface ChunkProfile {
  nodes: ChunkNode[];
  /** µs on V8's monotonic clock (the same clock in every process: see runClock.ts). */
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const frameKey = (cf: ChunkCallFrame) =>
  `${cf.functionName}\u0000${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.scriptId}`;

/**
 * Chunks merged in order into one profile: a node is the same node when its call frame and its parent's are (the
 * ids of each chunk are its own), samples keep their absolute times, and a sample at or before the last one kept is
 * dropped (a chunk overlapping the one before).
 */
export class ChunkMerger {
  private readonly nodes: ChunkNode[] = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1, scriptId: 0 }, hitCount: 0, children: [] },
  ];
  private readonly index = new Map<string, number>();
  private readonly lines = new Map<number, Map<number, number>>();
  private samples: number[] = [];
  private times: number[] = [];
  private startTime: number | undefined;
  private endTime: number | undefined;
  chunks = 0;

  get sampleCount(): number {
    return this.samples.length;
  }

  add(chunk: ChunkProfile): void {
    if (!chunk || !Array.isArray(chunk.nodes) || !chunk.nodes.length) return;
    this.chunks++;
    const byId = new Map(chunk.nodes.map((n) => [n.id, n]));
    const children = new Set(chunk.nodes.flatMap((n) => n.children ?? []));
    const root = chunk.nodes.find((n) => !children.has(n.id)) ?? chunk.nodes[0];
    const mapped = new Map<number, number>([[root.id, 1]]);
    const queue = [root.id];
    for (let i = 0; i < queue.length; i++) {
      const parent = mapped.get(queue[i])!;
      for (const c of byId.get(queue[i])?.children ?? []) {
        const n = byId.get(c);
        if (!n || mapped.has(c)) continue;
        const key = `${parent}\u0001${frameKey(n.callFrame)}`;
        let id = this.index.get(key);
        if (id === undefined) {
          id = this.nodes.length + 1;
          this.index.set(key, id);
          this.nodes.push({ id, callFrame: n.callFrame, hitCount: 0, children: [] });
          this.nodes[parent - 1].children!.push(id);
        }
        mapped.set(c, id);
        for (const pt of n.positionTicks ?? []) {
          let m = this.lines.get(id);
          if (!m) this.lines.set(id, (m = new Map()));
          m.set(pt.line, (m.get(pt.line) ?? 0) + pt.ticks);
        }
        queue.push(c);
      }
    }
    const samples = chunk.samples ?? [];
    const deltas = chunk.timeDeltas ?? [];
    let t = chunk.startTime;
    const last = this.times.length ? this.times[this.times.length - 1] : -Infinity;
    for (let i = 0; i < samples.length; i++) {
      t += deltas[i] ?? 0;
      const id = mapped.get(samples[i]);
      if (id === undefined || t <= last) continue;
      this.samples.push(id);
      this.times.push(t);
      this.nodes[id - 1].hitCount!++;
    }
    this.startTime = Math.min(this.startTime ?? chunk.startTime, chunk.startTime);
    this.endTime = Math.max(this.endTime ?? chunk.endTime, chunk.endTime);
  }

  /** The chunks so far as one `.cpuprofile`. */
  profile(): ChunkProfile {
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

/** Reads the whole lines of `text` as chunks into `merger`; returns how many characters were whole lines (the rest waits). */
export function addChunkLines(merger: ChunkMerger, text: string): number {
  let at = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
    const line = text.slice(at, nl);
    at = nl + 1;
    try {
      const rec = JSON.parse(line) as { profile?: ChunkProfile };
      if (rec.profile) merger.add(rec.profile);
    } catch {
      // a damaged line (a disk that filled mid-write): the chunks around it still count
    }
  }
  return at;
}
