import { CallTree, type Frame, type Profile } from '../model';
import type { ViewOptions } from '../model/viewOptions';
import type { Transform } from '../model/transforms';
import type { TimeRange } from '../model/timeline';
import type { RequestLog } from '../model/requests';
import type { EmbeddedTimeline } from './embedTimeline';
import type { FindingInfo, TimeFacts } from './protocol';
import { userCommand } from './shareable';

/**
 * A whole profile as JSON for the offline HTML export: the frame table and the call tree in parallel
 * arrays, so the page can answer every request the viewer makes (toggles, zoom detail, bottom-up, search).
 */
export interface EmbeddedProfile {
  version: 1;
  label: string;
  path: string;
  format: Profile['format'];
  meta: Profile['meta'];
  threads: Profile['threads'];
  warnings: string[];
  frames: Frame[];
  parent: number[];
  frame: number[];
  self: number[];
  strings: Record<string, string>;
  options?: ViewOptions;
  findings?: FindingInfo[];
  /** The per-sample timeline, packed (the HTML exporter adds it; see embedTimeline). */
  timeline?: EmbeddedTimeline;
  /** The run folder's markers and tracks for the Timeline, as the editor's host reads them. */
  timeFacts?: TimeFacts;
  /** The call-tree transforms (and time range) the export was made with: the page opens with them, as chips to undo. */
  transforms?: Transform[];
  /** The processes the viewer's picker kept when exported; absent: the page's own first choice. */
  shownThreads?: string[];
  /** The time range the export was made with. */
  range?: TimeRange;
  /** The run's HTTP requests and when each one's code ran (with `timeline`, whose sample times they label). */
  requests?: EmbeddedRequests;
  /** The HTTP routes the export was made with (`--route`): the page opens showing only their samples. */
  routes?: string[];
}

/** A run's RequestLog as JSON (its typed arrays as plain ones). */
export interface EmbeddedRequests {
  requests: RequestLog['requests'];
  changes: { pid: number; times: number[]; req: number[] }[];
  /** RequestLog's `cpu`, its rates shared already (JSON's null for NaN). */
  cpu?: { pid: number; times: number[]; ms: number[]; rate: (number | null)[] }[];
}

export function embedRequests(log: RequestLog): EmbeddedRequests {
  const cpu = log.cpu
    ?.filter((c) => c.rate)
    .map((c) => ({ pid: c.pid, times: [...c.times], ms: [...c.ms], rate: [...c.rate!].map((r) => (Number.isFinite(r) ? r : null)) }));
  return {
    requests: log.requests,
    changes: log.changes.map((c) => ({ pid: c.pid, times: [...c.times], req: [...c.req] })),
    ...(cpu?.length ? { cpu } : {}),
  };
}

/** The RequestLog back from the page's JSON; undefined for a shape that is not one. */
export function restoreRequests(e: EmbeddedRequests | undefined): RequestLog | undefined {
  if (!e || !Array.isArray(e.requests) || !Array.isArray(e.changes)) return undefined;
  const changes = e.changes.filter((c) => Array.isArray(c.times) && Array.isArray(c.req) && c.times.length === c.req.length);
  const cpu = (Array.isArray(e.cpu) ? e.cpu : [])
    .filter((c) => Array.isArray(c.times) && Array.isArray(c.ms) && Array.isArray(c.rate) && c.times.length === c.rate.length)
    .map((c) => ({
      pid: c.pid,
      times: Float64Array.from(c.times),
      ms: Float64Array.from(c.ms),
      rate: Float64Array.from(c.rate, (r) => (typeof r === 'number' ? r : NaN)),
    }));
  return {
    requests: e.requests,
    changes: changes.map((c) => ({ pid: c.pid, times: Float64Array.from(c.times), req: Int32Array.from(c.req) })),
    ...(cpu.length ? { cpu } : {}),
  };
}

export function embedProfile(p: Profile, label: string, strings: Record<string, string>, options?: ViewOptions): EmbeddedProfile {
  const t = p.tree;
  const parent: number[] = new Array(t.count);
  const frame: number[] = new Array(t.count);
  const self: number[] = new Array(t.count);
  for (let i = 0; i < t.count; i++) {
    parent[i] = t.parent[i];
    frame[i] = t.frame[i];
    self[i] = t.self[i];
  }
  // Only the fields views read: no `generated` positions of other machines' temp files needed twice.
  const frames = p.frames.map(({ name, file, line, column, category, tier, pkg, lib, generated }) => ({
    name,
    file,
    line,
    column,
    category,
    tier,
    pkg,
    lib,
    generated,
  }));
  return {
    version: 1,
    label,
    path: p.meta.source ?? label,
    format: p.format,
    meta: withoutEnvironment(p.meta),
    threads: p.threads,
    warnings: p.warnings,
    frames,
    parent,
    frame,
    self,
    strings,
    options,
  };
}

/**
 * The meta a page sent to others may carry: command lines without the environment they were started with
 * (a perf run's command holds the user's whole PATH) nor the launcher's flags and preload.
 */
function withoutEnvironment(meta: Profile['meta']): Profile['meta'] {
  return {
    ...meta,
    ...(meta.command !== undefined ? { command: userCommand(meta.command) } : {}),
    ...(meta.processes ? { processes: meta.processes.map((p) => ({ ...p, command: userCommand(p.command) })) } : {}),
  };
}

/** The profile back from its JSON; throws on a shape that is not one. */
export function restoreProfile(e: EmbeddedProfile): Profile {
  const n = e.parent.length;
  if (e.version !== 1 || e.frame.length !== n || e.self.length !== n || n < 1) throw new Error('embedded profile: bad shape');
  const tree = CallTree.fromArrays(
    { count: n, parent: e.parent, frame: e.frame, self: e.self.map((w) => (Number.isFinite(w) && w > 0 ? w : 0)) },
    e.frames.length,
  );
  return { format: e.format, meta: e.meta, frames: e.frames, tree, threads: e.threads, lineHits: new Map(), warnings: e.warnings };
}

/**
 * JSON that can sit inside `<script type="application/json">`: no `<`, `>` or `&` (so no `</script>`
 * or `<!--` can end or bend the element), and no U+2028/2029. Read back with textContent + JSON.parse.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
