// A Chrome trace (Trace Event Format: DevTools' Performance panel, `node --trace-event-categories
// disabled-by-default-v8.cpu_profiler`) holds V8's CPU profiles as a `Profile` event and `ProfileChunk` events, among
// thousands of other events. The events stream through a sink that keeps only the profiles' nodes, samples and deltas
// (typed arrays); each profile (pid and its `id`) becomes a .cpuprofile in the model, several merged as processes are.
// An event the sink wants is walked key by key (its number arrays read straight into typed arrays, never JS arrays);
// the others are stepped over unread.
import { stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { mergeProfiles, ProfileError, type MergePart, type ProcessMeta, type Profile } from '../model';
import { asCpuProfile, cpuProfileToModel } from './cpuprofile';
import { CpuNodeTable, type PositionTick } from './cpuprofileNodes';
import type { Rule, Schema, Sink } from './jsonScan';
import { LineCounts } from './traceLines';
import { EventNodes } from './traceNodes';
import { TraceSamples } from './traceSamples';
import { NumberList, packedSumAt } from './numberList';
import { readJsonStream } from './readJsonStream';
import type { Importer } from './types';
import type { TimelineSource } from '../model/packedTimeline';

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj | undefined => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : undefined);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : undefined);

// `Profile`, `ProfileChunk`, `CpuProfile`; `thread_name`, `process_name`. A JSON escape could hide a name from this test,
// which only costs that event: V8 and DevTools write them plainly.
const PROFILE = Buffer.from('Profile');
const NAME = Buffer.from('_name');

/** One V8 CPU profile of the trace, as its chunks arrive. */
interface TraceProfile {
  pid: number;
  tid: number | undefined;
  startTime: number | undefined;
  endTime: number | undefined;
  /** Each chunk's nodes go here as they come (repaired, call frames shared): they die young, as the .cpuprofile reader's do. */
  nodes: CpuNodeTable;
  samples: TraceSamples;
  /** Sample counts by node id and line (the chunks' `lines`), as a .cpuprofile's positionTicks. */
  lines: LineCounts;
}

const isList = (x: unknown): x is ArrayLike<unknown> => Array.isArray(x) || ArrayBuffer.isView(x);
const NONE: ArrayLike<unknown> = [];

/** Takes the trace's events one by one and keeps only what the profiles need. */
export class TraceSink implements Sink {
  length = 0;
  readonly profiles = new Map<string, TraceProfile>();
  readonly threadNames = new Map<string, string>();
  readonly processNames = new Map<number, string>();

  /** `size`: the file's length in bytes (0: not known), which bounds its samples. */
  constructor(private readonly size = 0) {}

  private profile(pid: number, id: string): TraceProfile {
    const key = `${pid}:${id}`;
    let p = this.profiles.get(key);
    if (!p) {
      p = {
        pid,
        tid: undefined,
        startTime: undefined,
        endTime: undefined,
        nodes: new CpuNodeTable(),
        // A sample takes at least its id and a comma, and a delta most often as many bytes again.
        samples: new TraceSamples(this.size / 4),
        lines: new LineCounts(),
      };
      this.profiles.set(key, p);
    }
    return p;
  }

  /** Only events whose text names a profile or a thread or process are read: a browser's trace is mostly others. */
  mark(b: Buffer, from: number, at: number): number {
    // Where each word next occurs in this chunk (-1: nowhere after), looked for again only once passed: a search per
    // chunk for a run of events without it, not one per event.
    if (at !== this.chunkAt) {
      this.chunkAt = at;
      this.next = [-2, -2];
    }
    let first = -1;
    for (let w = 0; w < 2; w++) {
      if (this.next[w] !== -1 && this.next[w] < from) this.next[w] = b.indexOf(w ? NAME : PROFILE, from);
      if (this.next[w] >= 0 && (first < 0 || this.next[w] < first)) first = this.next[w];
    }
    return first;
  }

  private chunkAt = -1;
  private next = [-2, -2];

  push(value: unknown): void {
    this.length++;
    const e = obj(value);
    if (!e) return;
    const pid = num(e.pid) ?? 0;
    const tid = num(e.tid);
    const args = obj(e.args);
    const data = obj(args?.data);
    switch (e.name) {
      case 'thread_name':
        if (typeof args?.name === 'string' && tid !== undefined) this.threadNames.set(`${pid}:${tid}`, args.name);
        return;
      case 'process_name':
        if (typeof args?.name === 'string') this.processNames.set(pid, args.name);
        return;
      case 'Profile': {
        const p = this.profile(pid, str(e.id) ?? '');
        // The Profile event comes from the profiled thread; its chunks come from the profiler's own thread.
        p.tid = tid;
        p.startTime = num(data?.startTime) ?? num(e.ts);
        return;
      }
      case 'ProfileChunk':
        if (data) this.chunk(this.profile(pid, str(e.id) ?? ''), data);
        return;
      case 'CpuProfile': {
        // Older DevTools saved the whole profile in one event.
        const cp = obj(data?.cpuProfile);
        if (!cp) return;
        const p = this.profile(pid, `cpuProfile ${this.profiles.size}`);
        p.tid = tid;
        p.startTime = num(cp.startTime);
        this.chunk(p, { cpuProfile: cp, timeDeltas: cp.timeDeltas, endTime: cp.endTime });
        return;
      }
    }
  }

  private chunk(p: TraceProfile, data: Obj): void {
    const cp = obj(data.cpuProfile);
    const nodes = cp?.nodes;
    if (nodes instanceof EventNodes) nodes.drain(p.nodes);
    else if (Array.isArray(nodes)) for (const n of nodes) p.nodes.push(n);
    // Typed arrays as walked (see `schema`); arrays when the event came another way.
    const samples = isList(cp?.samples) ? cp.samples : NONE;
    const deltas = isList(data.timeDeltas) ? data.timeDeltas : NONE;
    const lines = isList(data.lines) ? data.lines : NONE;
    p.samples.add(samples, deltas, lines, p.lines);
    const end = num(data.endTime) ?? num(cp?.endTime);
    if (end !== undefined) p.endTime = end;
  }

  private readonly eventNodes = new EventNodes();

  // Each number array of an event is read into one of these in turn (the sink takes its numbers before the next event).
  private readonly lists = [0, 1, 2, 3].map(() => new NumberList(0, false));

  /** What is read of an event: what `push` looks at, its number arrays as typed arrays. */
  eventSchema(): Schema {
    const list = (k: number): Rule => ({ list: () => this.lists[k].reset() });
    const cpuProfile: Schema = {
      nodes: { each: 'keep', sink: () => this.eventNodes.reset() },
      samples: list(0),
      timeDeltas: list(1),
      startTime: 'small',
      endTime: 'small',
    };
    const data: Schema = { cpuProfile: { object: cpuProfile }, timeDeltas: list(2), lines: list(3), startTime: 'small', endTime: 'small' };
    return {
      pid: 'small',
      tid: 'small',
      ts: 'small',
      id: 'small',
      name: 'small',
      args: { object: { name: 'small', data: { object: data } } },
    };
  }
}

const traceSchema = (size: number): Schema => {
  const sink = new TraceSink(size);
  return { traceEvents: { each: { object: sink.eventSchema() }, sink: () => sink } };
};

function sniffTrace(head: Buffer): boolean {
  const s = head
    .toString('utf8', 0, Math.min(head.length, 65536))
    .replace(/^\uFEFF/, '')
    .trimStart();
  // DevTools may write its `metadata` first, and an enhanced trace's metadata (source maps) can fill the head.
  if (s.startsWith('{')) return /"traceEvents"\s*:\s*\[/.test(s) || /^\{\s*"metadata"\s*:\s*\{[^]*"source"\s*:\s*"DevTools"/.test(s);
  // The array form has no key to tell it by: its first event does (every event has a phase `ph`).
  return /^\[\s*\{/.test(s) && /"ph"\s*:\s*"/.test(s) && /"(pid|ts)"\s*:/.test(s);
}

/** The chunks' line counts become their nodes' positionTicks, in place of any the nodes had, in node order. */
function setLineTicks(t: CpuNodeTable, lines: Map<number, PositionTick[]>): void {
  if (!lines.size) return;
  const own = new Map<number, PositionTick[]>();
  for (let k = 0; k < t.tickNodes.length; k++) own.set(t.tickNodes[k], t.ticks[k]);
  t.tickNodes.length = 0;
  t.ticks.length = 0;
  for (let i = 0; i < t.count; i++) {
    const ticks = lines.get(t.ids[i]) ?? own.get(i);
    if (ticks) {
      t.tickNodes.push(i);
      t.ticks.push(ticks);
    }
  }
}

/**
 * A profile's packed timeline as the merge reads it (TimelineSource's sums): each part's timeline unpacked for the merge
 * was eight bytes a sample more. Undefined when it has none packed.
 */
function mergeSource(profile: Profile): TimelineSource | undefined {
  const tl = profile.timeline;
  const p = tl?.packed;
  const n = tl?.nodes.length ?? 0;
  if (!tl || !p || n === 0) return undefined;
  const sums = { us: p.us, blockUs: p.blockUs, wide: p.wide };
  return { length: n, nodes: tl.nodes, sums, firstUs: packedSumAt(sums, 0), last: packedSumAt(sums, n - 1) / 1000 };
}

/** The model of a trace's CPU profiles: one alone as a .cpuprofile is, several merged as a run's processes. */
export function traceToModel(sink: TraceSink, path: string): Profile {
  const found = [...sink.profiles.values()].filter((p) => p.nodes.length > 0);
  if (!found.length)
    throw new ProfileError(
      l10n.t(
        'the trace holds no CPU profile (record it with the "disabled-by-default-v8.cpu_profiler" category, or DevTools\' Performance panel)',
      ),
      path,
    );
  const perPid = new Map<number, number>();
  for (const p of found) perPid.set(p.pid, (perPid.get(p.pid) ?? 0) + 1);
  const labels = new Set<string>();
  const parts: MergePart[] = found.map((p) => {
    const nodes = p.nodes;
    setLineTicks(nodes, p.lines.byNode());
    const cpu = asCpuProfile(
      { nodes, samples: p.samples.samples(), timeSums: p.samples.times(), startTime: p.startTime, endTime: p.endTime },
      path,
    );
    const profile = cpuProfileToModel(cpu, path);
    const name = sink.threadNames.get(`${p.pid}:${p.tid}`) ?? sink.processNames.get(p.pid) ?? '';
    const several = (perPid.get(p.pid) ?? 0) > 1 && p.tid !== undefined;
    let thread = `pid ${p.pid}${several ? ` thread ${p.tid}` : ''} ${name}`.trim();
    // Two profiles of one thread (recorded one after another) stay two levels: the merge joins equal names.
    for (let k = 2; labels.has(thread); k++) thread = `${thread.replace(/ #\d+$/, '')} #${k}`;
    labels.add(thread);
    const startMs = p.startTime !== undefined ? p.startTime / 1000 : undefined;
    const packed = found.length > 1 ? mergeSource(profile) : undefined;
    return { profile, thread, pid: p.pid, tid: p.tid, startMs, ...(packed ? { packed } : {}) };
  });
  let profile: Profile;
  if (parts.length === 1) {
    profile = parts[0].profile;
    profile.threads = profile.threads.map((t) => ({ ...t, name: parts[0].thread, pid: parts[0].pid, tid: parts[0].tid }));
  } else {
    const durationMs = Math.max(...parts.map((p) => p.profile.meta.durationMs ?? 0));
    profile = mergeProfiles(parts, { durationMs, mode: 'cpu-prof', source: path }, { timelineMayWait: true });
  }
  profile.format = 'chrome-trace';
  const processes: ProcessMeta[] = [...perPid.keys()].map((pid) => ({ pid, ppid: null, command: sink.processNames.get(pid) ?? '' }));
  if (parts.length > 1) profile.meta.processes = processes;
  return profile;
}

/** A trace file read by streaming into the model; `chunkSize` is for tests of chunk boundaries. */
export async function readChromeTrace(
  path: string,
  opts: { signal?: AbortSignal; onProgress?: (fraction: number) => void; chunkSize?: number } = {},
): Promise<Profile> {
  opts.signal?.throwIfAborted();
  const corrupt = (why: string) => l10n.t('not valid JSON, the trace is truncated or corrupt ({0})', why);
  const size = (await stat(path).catch(() => undefined))?.size ?? 0;
  const json = (await readJsonStream(path, traceSchema(size), corrupt, { ...opts, arrayKey: 'traceEvents' })) as { traceEvents?: unknown };
  opts.signal?.throwIfAborted();
  if (!(json.traceEvents instanceof TraceSink)) throw new ProfileError(l10n.t('not a trace: no "traceEvents" array of events'), path);
  const profile = traceToModel(json.traceEvents, path);
  opts.onProgress?.(1);
  return profile;
}

export const chromeTraceImporter: Importer = {
  format: 'chrome-trace',
  sniff: (head) => sniffTrace(head),
  load: (path, opts) => readChromeTrace(path, opts),
};
