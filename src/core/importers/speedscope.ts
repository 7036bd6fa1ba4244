// speedscope's own file format (https://www.speedscope.app/file-format-schema.json): frames shared by every profile,
// each profile `sampled` (stacks of frame indices and their weights) or `evented` (frames opened and closed at times).
// Read by streaming: stacks and events fold into a call tree of frame indices as they are parsed, nothing else is kept;
// each profile becomes a thread, several merged as a run's processes are.
import * as l10n from '@vscode/l10n';
import { CallTree, mergeProfiles, ProfileBuilder, ProfileError, type Frame, type Profile, type WeightUnit } from '../model';
import { cpuFrame } from './cpuprofile';
import type { Schema, Sink } from './jsonScan';
import { NumberList } from './numberList';
import { readJsonStream } from './readJsonStream';
import type { Importer } from './types';
import { doubled } from '../doubled';

export const SPEEDSCOPE_SCHEMA_URL = 'https://www.speedscope.app/file-format-schema.json';

/** A unit of time to ms; bytes and plain counts stay as they are. */
const TIME_UNITS: Record<string, number> = { nanoseconds: 1e-6, microseconds: 1e-3, milliseconds: 1, seconds: 1e3 };

/** A sampled profile's stacks, each folded into the tree as it is parsed; the sample keeps only its leaf node. */
class StackSink implements Sink {
  length = 0;
  readonly tree = new CallTree();
  readonly leaves = new NumberList(0, false);
  bad = 0;
  push(value: unknown): void {
    this.length++;
    let node = 0;
    if (Array.isArray(value)) {
      for (const f of value)
        if (Number.isSafeInteger(f) && f >= 0 && f < 2 ** 31) node = this.tree.child(node, f as number);
        else this.bad++;
    } else this.bad++;
    this.leaves.push(node);
  }

  /**
   * Stacks of the plain form (`[` indices of up to 9 digits, no leading zero, split by bare commas `]`) read from the
   * bytes, each folded once whole: the same nodes push gives the parsed array, without an array per sample.
   */
  scan(b: Buffer, i: number): number {
    const n = b.length;
    let done = -1;
    // Every read is within `b`: one past its end made V8 drop the optimized code, chunk after chunk.
    while (i < n && b[i] === 0x5b) {
      let j = i + 1;
      let k = 0;
      // How many of the first frames are the last stack's too.
      let same = 0;
      if (j < n && b[j] === 0x5d) j++;
      else
        for (;;) {
          const from = j;
          let v = 0;
          let c = 0;
          while (j < n && (c = b[j]) >= 0x30 && c <= 0x39) {
            v = v * 10 + (c - 0x30);
            j++;
          }
          // j === n: the stack goes on in the next chunk.
          if (j === n || j === from || j - from > 9 || (b[from] === 0x30 && j > from + 1)) return done;
          if (k === this.stack.length) this.grow();
          if (same === k && k < this.lastLength && this.last[k] === v) same++;
          this.stack[k++] = v;
          j++;
          if (c === 0x5d) break;
          if (c !== 0x2c) return done;
        }
      // Samples in a row share most of their stack: the nodes of the part the last one had are known already.
      const { stack, last, nodes } = this;
      let node = same ? nodes[same - 1] : 0;
      for (let q = same; q < k; q++) {
        node = nodes[q] = this.tree.child(node, stack[q]);
        last[q] = stack[q];
      }
      this.lastLength = k;
      this.leaves.push(node);
      this.length++;
      done = j;
      if (j === n || b[j] !== 0x2c) return done;
      i = j + 1;
    }
    return done;
  }

  /** The stack being read; the last one scanned and its nodes (push does not set them: the tree only grows). */
  private stack = new Int32Array(256);
  private last = new Int32Array(256);
  private nodes = new Int32Array(256);
  private lastLength = 0;

  private grow(): void {
    this.stack = doubled(this.stack);
    this.last = doubled(this.last);
    this.nodes = doubled(this.nodes);
  }
}

/** An evented profile's open and close events, folded as they come: the time each stack was on top is its self time. */
class EventSink implements Sink {
  length = 0;
  readonly tree = new CallTree();
  /** Where the top of the stack changed, and to which node (0: nothing open): the timeline, in the file's unit. */
  readonly nodes = new NumberList(0, false);
  readonly at = new NumberList(0, false);
  private stack: number[] = [];
  private last = NaN;
  first = NaN;
  bad = 0;
  unclosed = 0;
  push(value: unknown): void {
    this.length++;
    const e = value as { type?: unknown; frame?: unknown; at?: unknown } | null;
    const f = e?.frame;
    const at = e?.at;
    if (!e || typeof at !== 'number' || !Number.isFinite(at) || !Number.isSafeInteger(f) || (f as number) < 0 || (f as number) >= 2 ** 31) {
      this.bad++;
      return;
    }
    // Events are in time order; one out of order is taken at the time reached so far.
    const t = Number.isNaN(this.last) ? at : Math.max(at, this.last);
    if (Number.isNaN(this.first)) this.first = t;
    const top = this.stack.length ? this.stack[this.stack.length - 1] : 0;
    if (top && t > this.last) this.tree.addSelf(top, t - this.last);
    this.last = t;
    if (e.type === 'O') this.stack.push(this.tree.child(top, f as number));
    else if (e.type === 'C') {
      // A close names the frame it closes: one not open is damage, and closes whatever was opened above it too.
      let k = this.stack.length - 1;
      while (k >= 0 && this.tree.frame[this.stack[k]] !== f) k--;
      if (k < 0) {
        this.bad++;
        return;
      }
      this.stack.length = k;
    } else {
      this.bad++;
      return;
    }
    this.nodes.push(this.stack.length ? this.stack[this.stack.length - 1] : 0);
    this.at.push(t);
  }
  /** Frames still open at the end run until `end` (the profile's endValue) when it is later. */
  finish(end: number | undefined): void {
    this.unclosed = this.stack.length;
    const top = this.stack.length ? this.stack[this.stack.length - 1] : 0;
    if (top && end !== undefined && end > this.last) this.tree.addSelf(top, end - this.last);
  }
}

interface RawProfile {
  type?: unknown;
  name?: unknown;
  unit?: unknown;
  startValue?: unknown;
  endValue?: unknown;
  samples?: unknown;
  weights?: unknown;
  events?: unknown;
}

const schema = (): Schema => {
  const profile: Schema = {
    type: 'small',
    name: 'small',
    unit: 'small',
    startValue: 'small',
    endValue: 'small',
    samples: { each: 'keep', sink: () => new StackSink() },
    weights: { each: 'keep', sink: () => new WeightSink() },
    events: { each: 'keep', sink: () => new EventSink() },
  };
  return { shared: { object: { frames: { each: 'keep' } } }, profiles: { each: { object: profile } }, name: 'small' };
};

class WeightSink implements Sink {
  length = 0;
  readonly list = new NumberList(0, false);
  push(value: unknown): void {
    this.length++;
    this.list.push(typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
  }
}

function sniffSpeedscope(head: Buffer): boolean {
  const s = head
    .toString('utf8', 0, Math.min(head.length, 65536))
    .replace(/^\uFEFF/, '')
    .trimStart();
  return s.startsWith('{') && /"\$schema"\s*:\s*"https:\/\/www\.speedscope\.app\/file-format-schema\.json"/.test(s);
}

/** A speedscope frame as a model frame: the same reading of names and files as a .cpuprofile's (1-based lines). */
function frameOf(f: unknown, i: number): Frame | null {
  const o = (f && typeof f === 'object' ? f : {}) as { name?: unknown; file?: unknown; line?: unknown; col?: unknown };
  const name = typeof o.name === 'string' ? o.name : `(frame ${i})`;
  const line = Number.isSafeInteger(o.line) && (o.line as number) > 0 ? (o.line as number) - 1 : undefined;
  const col = Number.isSafeInteger(o.col) && (o.col as number) > 0 ? (o.col as number) - 1 : undefined;
  return cpuFrame({ functionName: name, url: typeof o.file === 'string' ? o.file : '', lineNumber: line, columnNumber: col });
}

/** One profile's tree of frame indices into the model; `times` (ms) are each sample's, `factor` scales weights. */
function toModel(
  tree: CallTree,
  frames: unknown[],
  factor: number,
  unit: WeightUnit,
  timeline: { nodes: ArrayLike<number>; times: Float64Array } | undefined,
  meta: { durationMs: number | null; source: string },
): Profile {
  const b = new ProfileBuilder('speedscope', { durationMs: meta.durationMs, source: meta.source, ...(unit !== 'samples' ? { unit } : {}) });
  const ids = new Int32Array(frames.length).fill(-2);
  let unknown = 0;
  const frameId = (i: number): number => {
    if (i >= frames.length) {
      unknown++;
      return b.frame(cpuFrame({ functionName: `(frame ${i})` })!);
    }
    if (ids[i] === -2) {
      const f = frameOf(frames[i], i);
      ids[i] = f ? b.frame(f) : -1;
    }
    return ids[i];
  };
  const moved = new Int32Array(tree.count);
  // Children have higher ids than their parents: one pass in id order places every node under its placed parent.
  for (let n = 1; n < tree.count; n++) {
    const f = frameId(tree.frame[n]);
    const at = f < 0 ? moved[tree.parent[n]] : b.tree.child(moved[tree.parent[n]], f);
    moved[n] = at;
    if (tree.self[n]) b.tree.addSelf(at, tree.self[n] * factor, unit === 'ms' ? tree.self[n] * factor : 0);
  }
  if (unknown) b.warn(l10n.t('{0} stacks name frames that "shared.frames" does not list', unknown));
  const profile = b.build();
  if (timeline && timeline.times.length) {
    const nodes = new Uint32Array(timeline.times.length);
    for (let i = 0; i < nodes.length; i++) nodes[i] = moved[timeline.nodes[i]];
    profile.timeline = { nodes, times: timeline.times };
  }
  return profile;
}

function readProfile(p: RawProfile, frames: unknown[], path: string, i: number): { profile: Profile; name: string; startMs?: number } {
  const unitName = typeof p.unit === 'string' ? p.unit : 'none';
  // Own keys only: a unit named `constructor` is no time unit (`in` found Object's methods).
  const time = Object.hasOwn(TIME_UNITS, unitName);
  const factor = time ? TIME_UNITS[unitName] : 1;
  const unit: WeightUnit = time ? 'ms' : unitName === 'bytes' ? 'bytes' : 'samples';
  const name = typeof p.name === 'string' && p.name ? p.name : `profile ${i + 1}`;
  const start = typeof p.startValue === 'number' && Number.isFinite(p.startValue) ? p.startValue : undefined;
  const end = typeof p.endValue === 'number' && Number.isFinite(p.endValue) ? p.endValue : undefined;
  const span = start !== undefined && end !== undefined && end >= start && unit === 'ms' ? (end - start) * factor : null;
  const meta = { durationMs: span, source: path };
  let bad = 0;
  let profile: Profile;
  if (p.type === 'evented' && p.events instanceof EventSink) {
    const ev = p.events;
    ev.finish(end);
    bad = ev.bad;
    const origin = start ?? ev.first;
    const at = ev.at.done();
    const times = new Float64Array(at.length);
    for (let k = 0; k < at.length; k++) times[k] = Math.max(0, (at[k] - origin) * factor);
    profile = toModel(ev.tree, frames, factor, unit, unit === 'ms' ? { nodes: ev.nodes.done(), times } : undefined, meta);
    if (ev.unclosed) profile.warnings.push(l10n.t('{0} frames of "{1}" were never closed; they run until the end', ev.unclosed, name));
    if (bad) profile.warnings.push(l10n.t('{0} malformed entries of "{1}" were skipped', bad, name));
    return { profile, name, startMs: unit === 'ms' ? origin * factor : undefined };
  }
  if (p.type === 'sampled' && p.samples instanceof StackSink) {
    const s = p.samples;
    bad = s.bad;
    const leaves = s.leaves.done();
    const w = p.weights instanceof WeightSink ? p.weights.list.done() : undefined;
    if (w && w.length !== leaves.length)
      throw new ProfileError(
        l10n.t('not a speedscope profile: "{0}" has {1} samples but {2} weights', name, leaves.length, w.length),
        path,
      );
    const times = unit === 'ms' ? new Float64Array(leaves.length) : undefined;
    let t = 0;
    for (let k = 0; k < leaves.length; k++) {
      const weight = w ? w[k] : 1;
      s.tree.addSelf(leaves[k], weight);
      if (times) times[k] = t;
      t += weight * factor;
    }
    if (unit === 'ms' && meta.durationMs === null) meta.durationMs = t;
    profile = toModel(s.tree, frames, factor, unit, times ? { nodes: leaves, times } : undefined, meta);
    if (bad) profile.warnings.push(l10n.t('{0} malformed entries of "{1}" were skipped', bad, name));
    return { profile, name, startMs: unit === 'ms' && start !== undefined ? start * factor : undefined };
  }
  throw new ProfileError(
    l10n.t('not a speedscope profile: profile "{0}" is neither "sampled" with "samples" nor "evented" with "events"', name),
    path,
  );
}

export const speedscopeImporter: Importer = {
  format: 'speedscope',
  sniff: (head) => sniffSpeedscope(head),
  load: async (path, opts) => {
    opts.signal?.throwIfAborted();
    const json = (await readJsonStream(
      path,
      schema(),
      (why) => l10n.t('not valid JSON, the speedscope file is truncated or corrupt ({0})', why),
      opts,
    )) as { shared?: { frames?: unknown }; profiles?: unknown };
    opts.signal?.throwIfAborted();
    const frames = json.shared?.frames;
    if (!Array.isArray(frames)) throw new ProfileError(l10n.t('not a speedscope profile: no "shared.frames" array'), path);
    if (!Array.isArray(json.profiles) || json.profiles.length === 0)
      throw new ProfileError(l10n.t('not a speedscope profile: no "profiles"'), path);
    const read = json.profiles.map((p, i) => readProfile((p && typeof p === 'object' ? p : {}) as RawProfile, frames, path, i));
    let profile: Profile;
    if (read.length === 1) {
      profile = read[0].profile;
      profile.threads = profile.threads.map((t) => ({ ...t, name: read[0].name }));
    } else {
      const parts = read.map((r) => ({ profile: r.profile, thread: r.name, startMs: r.startMs }));
      const durationMs = Math.max(...read.map((r) => r.profile.meta.durationMs ?? 0));
      profile = mergeProfiles(parts, { ...read[0].profile.meta, durationMs });
      profile.format = 'speedscope';
    }
    opts.onProgress?.(1);
    return profile;
  },
};
