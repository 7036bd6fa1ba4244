import { ProfileBuilder, type Profile } from '../../model';
import * as l10n from '@vscode/l10n';
import { classifyPerfFrame } from './frames';
import { FrameKeyTable } from './keyTable';
import { doubled } from '../../doubled';
import { CALLERS_UNKNOWN, LostCallers } from './lostCallers';
import { PERF_DEFAULT_MAX_STACK, STACK_TOO_DEEP } from '../deepStacks';
import { CALLER_NOT_RECORDED, type FramePointerCheck } from './framePointers';
import type { ThreadLabel } from '../types';

/** A callchain-less sample carries its one frame on the header line. */
const INLINE_FRAME = /^([0-9a-f]+)\s+(\S[^]*)$/i;
/** A frame of V8's code, `sym (/tmp/perf-<pid>.map)` or a jitdump's `(jitted-<pid>-<n>.so)`: whose code it is. */
const JIT_MAP = /(?:\/perf-(\d+)\.map|jitted-(\d+)-\d+\.so)\)$/;
const NOT_JIT = -1;
const UV_SPAWN = -2;

interface StackAgg {
  /** Index in the parser's list of distinct stacks (the timeline refers to stacks by it). */
  id: number;
  thread: number;
  frames: Int32Array;
  weight: number;
  timeMs: number;
  /** A forked child's own frames, cut where its parent's copied stack begins. */
  cut: boolean;
  /** How many frames perf listed for it: at perf's depth limit, its outermost callers were cut. */
  listed: number;
  next?: StackAgg;
}

/**
 * Streaming `perf script` text parser. Text arrives as latin1 strings (one byte, one char) so line
 * scanning never pays for UTF-8 decoding; names are decoded once, when a frame is first seen.
 * Identical stacks are summed here and enter the call tree once each, at the end.
 */
export class PerfScriptParser {
  readonly builder: ProfileBuilder;
  /**
   * Raw frame text (`sym+off (dso)`) → frame id; for the frames a forked child is told by (JIT code, uv_spawn),
   * `-2 - i` instead: their frame id and kind are `marked[i]` (so the other frames cost no lookup but the key's).
   */
  private readonly keys = new FrameKeyTable();
  private readonly marked: { frame: number; kind: number }[] = [];
  /** The current sample's pid, and where (depth) its stack met uv_spawn and a JIT frame of another process. */
  private pid = -1;
  private spawnAt = -1;
  private forkedAt = -1;
  /** Pids that have had samples: a JIT map's pid among them is another process of this recording. */
  private readonly seenPids = new Set<number>();
  private rest?: Buffer;
  private stack = new Int32Array(512);
  private depth = 0;
  /** Frames perf listed for the current sample, and for the deepest sample so far. */
  private listed = 0;
  private deepest = 0;
  private hash = 0;
  private open = false;
  private thread = 0;
  private weight = 1;
  private timeMs = 0;
  private readonly threadNames: string[] = [];
  private readonly threadIds = new Map<string, number>();
  private readonly threadInfos: { pid?: number; tid: number }[] = [];
  private readonly stacks = new Map<number, StackAgg>();
  private aggCount = 0;
  /** Per sample with a timestamp: its stack, time (s) and weight; grown by doubling, outside the JS heap. */
  private tlAgg = new Int32Array(4096);
  private tlTime = new Float64Array(4096);
  private tlWeight = new Float64Array(4096);
  private tlCount = 0;
  /** The current sample's time in s, NaN when perf printed none. */
  private ts = NaN;
  private firstTime = Infinity;
  private lastTime = -Infinity;
  private intervalMs?: number;
  private skipped = 0;
  private lastWho = '';
  private lastThread = 0;
  samples = 0;
  /** By frame id: the library file of a native frame, null for the kernel's (undefined: anything else). */
  private readonly libOf: (string | null | undefined)[] = [];
  /**
   * Where the current sample is in its frames: 0 before its first frame of user code (a sample taken in the kernel
   * lists the kernel's first), 2 right after one that ran without its own frame pointer (the next frame perf gives is
   * not its caller), 1 after.
   */
  private userState = 0;
  private notRecorded = -1;
  private markedSample = false;
  private notRecordedWeight = 0;
  private allWeight = 0;
  /** `#` lines (`perf script --header` writes the recording's facts there). */
  onComment?: (line: string) => void;
  /** The run's names for its threads (a run folder's reader sets it); perf's `comm pid/tid` for the others. */
  threadLabel?: ThreadLabel;

  /** `check`: reads whether sampled native code had its own frame pointer (none: stacks stay as perf gave them). */
  constructor(
    builder?: ProfileBuilder,
    private readonly check?: FramePointerCheck,
  ) {
    this.builder = builder ?? new ProfileBuilder('perf', { durationMs: null, mode: 'perf' });
  }

  /**
   * Feeds the next bytes; lines may be split anywhere between calls. Only whole lines become a string,
   * so the hot loop always sees one flat one-byte string (a concatenated one would be slow to index).
   */
  push(chunk: Buffer | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.rest) {
      // Finish the carried-over line on its own instead of copying the whole chunk behind it.
      const nl = buf.indexOf(10);
      if (nl < 0) {
        this.rest = Buffer.concat([this.rest, buf]);
        return;
      }
      const joined = Buffer.concat([this.rest, buf.subarray(0, nl + 1)]);
      this.rest = undefined;
      this.lines(joined.toString('latin1'), joined);
      buf = buf.subarray(nl + 1);
    }
    const last = buf.lastIndexOf(10);
    if (last < 0) {
      if (buf.length) this.rest = Buffer.from(buf);
      return;
    }
    if (last + 1 < buf.length) this.rest = Buffer.from(buf.subarray(last + 1));
    this.lines(buf.toString('latin1', 0, last + 1), buf);
  }

  /** Handles the lines of `s`; `b` holds the same text as bytes (latin1: one char per byte). */
  private lines(s: string, b: Uint8Array): void {
    const n = s.length;
    let pos = 0;
    while (pos < n) {
      const nl = s.indexOf('\n', pos);
      if (nl < 0) break;
      let end = nl;
      if (end > pos && s.charCodeAt(end - 1) === 13) end--;
      const c = s.charCodeAt(pos);
      if (c === 9 || c === 32) {
        if (this.open) this.frameLine(b, pos, end);
      } else if (end === pos) {
        if (this.open) this.finish();
      } else if (c !== 35) {
        this.header(s.slice(pos, end));
      } else if (this.onComment) {
        this.onComment(s.slice(pos, end));
      }
      pos = nl + 1;
    }
  }

  private frameLine(b: Uint8Array, start: number, end: number): void {
    this.listed++;
    let p = start + 1;
    while (b[p] === 32 || b[p] === 9) p++;
    // The address, then one space, then `sym (dso)`: the address is not part of the key.
    const at = p;
    while (p < end && b[p] !== 32) p++;
    if (++p >= end) return;
    const h = FrameKeyTable.hash(b, p, end);
    let id = this.keys.find(b, p, end, h);
    if (id === -1) id = this.intern(b, p, end, h);
    if (id < 0) id = this.note(id);
    if (this.userState !== 1 && this.check) this.beforeUserFrame(id, b, at);
    this.push1(id);
  }

  /** Puts `(caller not recorded)` above a first frame of user code that had no frame pointer of its own. */
  private beforeUserFrame(id: number, b: Uint8Array, at: number): void {
    if (this.userState === 2) {
      if (this.notRecorded < 0) this.notRecorded = this.builder.frame(CALLER_NOT_RECORDED);
      this.push1(this.notRecorded);
      this.userState = 1;
      this.markedSample = true;
      return;
    }
    const lib = this.libOf[id];
    if (lib === null) return;
    this.userState = lib !== undefined && this.check!.frameless(lib, hexAt(b, at)) ? 2 : 1;
  }

  /**
   * A child a Node process forks (child_process.spawn: uv_spawn) runs, until its exec, on a copy of its parent's
   * stack: its samples there read as the parent's JavaScript (perf names them from the parent's perf-<pid>.map),
   * and made the child a thread that ran JavaScript (jest-haste-map's execFile('watchman'), whose exec failed: a
   * process of one sample, 12 JavaScript frames). Such a stack is cut below uv_spawn, where the child's own code
   * starts; without uv_spawn, at the first JIT frame of the other process.
   */
  private note(key: number): number {
    const { frame, kind } = this.marked[-2 - key];
    if (kind === UV_SPAWN) {
      if (this.spawnAt < 0) this.spawnAt = this.depth;
    } else if (this.forkedAt < 0 && kind !== this.pid && this.seenPids.has(kind)) this.forkedAt = this.depth;
    return frame;
  }

  private push1(id: number): void {
    if (this.depth === this.stack.length) this.stack = doubled(this.stack);
    this.stack[this.depth++] = id;
    this.hash = Math.imul(this.hash ^ id, 0x01000193);
  }

  private intern(b: Uint8Array, start: number, end: number, hash: number): number {
    const text = Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8');
    const lost = /^\[unknown\] \((.*perf-\d+\.map)\)$/.exec(text);
    if (lost) {
      const w = l10n.t('JavaScript frames could not be named: {0} was missing or incomplete when perf script ran', lost[1]);
      this.builder.warn(w);
      // A process run without the perf flags (started by a path, its own flags): said in the run's notification too.
      (this.builder.meta.unnamed ??= []).push(w);
    }
    const frame = classifyPerfFrame(text);
    const id = this.builder.frame(frame);
    if (frame.category === 'kernel') this.libOf[id] = null;
    else if (frame.lib?.startsWith('/') && frame.name !== '[unknown]') this.libOf[id] = frame.lib;
    const map = JIT_MAP.exec(text);
    const kind = map ? Number(map[1] ?? map[2]) : frame.name === 'uv_spawn' ? UV_SPAWN : NOT_JIT;
    if (kind === NOT_JIT) {
      this.keys.add(b, start, end, hash, id);
      return id;
    }
    this.marked.push({ frame: id, kind });
    const key = -1 - this.marked.length;
    this.keys.add(b, start, end, hash, key);
    return key;
  }

  private header(line: string): void {
    if (this.open) this.finish();
    let t: number;
    let time: string | undefined, period: string | undefined, event: string, tail: string | undefined;
    // Consecutive samples mostly come from the same thread: reuse its `comm pid/tid [cpu]` prefix.
    const w = this.lastWho && line.startsWith(this.lastWho) ? sampleFields(line, this.lastWho.length, true) : null;
    if (w) {
      t = this.lastThread;
      ({ time, period, event, tail } = w);
    } else {
      const m = parseHeader(line);
      if (!m) {
        this.skipped++;
        return;
      }
      const { comm, first, second } = m;
      ({ time, period, event, tail } = m);
      const key = second !== undefined ? `${first}/${second}` : first;
      const name = `${comm} ${key}`;
      // A thread is its pid/tid: a process that renames itself (npm sets its title to `npm start`) stays one
      // thread, named by the last name it had.
      let id = this.threadIds.get(key);
      if (id === undefined) {
        id = this.threadNames.length;
        this.threadNames.push(name);
        this.threadIds.set(key, id);
        const pid = Number(first);
        this.threadInfos.push(second !== undefined ? { pid, tid: Number(second) } : { tid: pid });
      } else this.threadNames[id] = name;
      t = id;
      this.lastThread = id;
      const info = this.threadInfos[id];
      this.pid = info.pid ?? info.tid;
      this.seenPids.add(this.pid);
      this.lastWho = time !== undefined ? line.slice(0, m.timeAt) : '';
    }
    // A period past 2^53 is damage (and enough of them would add up to Infinity): the sample is skipped.
    const weight = period ? Number(period) : 1;
    if (!(weight <= Number.MAX_SAFE_INTEGER)) {
      this.skipped++;
      return;
    }
    this.thread = t;
    this.weight = weight;
    // cpu-clock and task-clock count nanoseconds; other events count events, not time.
    const clock = event.startsWith('cpu-clock') || event.startsWith('task-clock');
    this.timeMs = clock && period ? this.weight / 1e6 : 0;
    if (clock && period && this.intervalMs === undefined) this.intervalMs = this.timeMs;
    this.ts = NaN;
    if (time) {
      const ts = Number(time);
      if (ts < this.firstTime) this.firstTime = ts;
      if (ts > this.lastTime) this.lastTime = ts;
      this.ts = ts;
    }
    this.open = true;
    this.depth = 0;
    this.listed = 0;
    this.hash = 0x811c9dc5;
    this.userState = 0;
    this.markedSample = false;
    this.spawnAt = -1;
    this.forkedAt = -1;
    if (tail) {
      const f = INLINE_FRAME.exec(tail);
      if (f) {
        const key = Buffer.from(f[2], 'latin1');
        const h = FrameKeyTable.hash(key, 0, key.length);
        let id = this.keys.find(key, 0, key.length, h);
        if (id === -1) id = this.intern(key, 0, key.length, h);
        this.push1(id < 0 ? this.marked[-2 - id].frame : id);
        this.finish();
      }
    }
  }

  private finish(): void {
    this.open = false;
    this.samples++;
    this.allWeight += this.weight;
    if (this.markedSample) this.notRecordedWeight += this.weight;
    const cut = this.forkedAt >= 0;
    if (cut) this.cutForked();
    if (this.listed > this.deepest) this.deepest = this.listed;
    const depth = this.depth;
    const h = Math.imul(this.hash ^ this.thread, 0x01000193) ^ depth;
    let agg = this.stacks.get(h);
    for (let a = agg; a; a = a.next) {
      if (a.thread === this.thread && a.frames.length === depth && sameFrames(a.frames, this.stack)) {
        a.weight += this.weight;
        a.timeMs += this.timeMs;
        this.onTimeline(a.id);
        return;
      }
    }
    // Kept leaf-first as perf lists them; reversed to the model's root-first order in end().
    agg = {
      id: this.aggCount++,
      thread: this.thread,
      frames: this.stack.slice(0, depth),
      weight: this.weight,
      timeMs: this.timeMs,
      cut,
      listed: this.listed,
      next: agg,
    };
    this.stacks.set(h, agg);
    this.onTimeline(agg.id);
  }

  /** The forked child's own frames only (see `note`): leaf-first, so its stack ends at uv_spawn. */
  private cutForked(): void {
    this.depth = this.spawnAt >= 0 && this.spawnAt < this.forkedAt ? this.spawnAt + 1 : this.forkedAt;
    let h = 0x811c9dc5;
    for (let i = 0; i < this.depth; i++) h = Math.imul(h ^ this.stack[i], 0x01000193);
    this.hash = h;
  }

  private onTimeline(agg: number): void {
    if (Number.isNaN(this.ts)) return;
    if (this.tlCount === this.tlAgg.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      this.tlAgg = grow(this.tlAgg);
      this.tlTime = grow(this.tlTime);
      this.tlWeight = grow(this.tlWeight);
    }
    this.tlAgg[this.tlCount] = agg;
    this.tlTime[this.tlCount] = this.ts;
    this.tlWeight[this.tlCount++] = this.weight;
  }

  /** The samples in time order (CPUs' samples arrive slightly out of order), as tree nodes and ms from the first. */
  private timeline(nodeOf: Int32Array, b: ProfileBuilder): void {
    const n = this.tlCount;
    if (!n || n !== this.samples) return;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const t = this.tlTime;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = t[i - 1] <= t[i];
    if (!sorted) order.sort((a, b) => t[a] - t[b] || a - b);
    const nodes = new Uint32Array(n);
    const times = new Float64Array(n);
    const weights = new Float64Array(n);
    const t0 = t[order[0]];
    for (let i = 0; i < n; i++) {
      const j = order[i];
      nodes[i] = nodeOf[this.tlAgg[j]];
      times[i] = (t[j] - t0) * 1000;
      weights[i] = this.tlWeight[j];
    }
    b.timeline = { nodes, times, weights };
    b.meta.perfStartMs = t0 * 1000;
  }

  /** Timestamp (s) of the latest sample seen, for progress. */
  get latestTime(): number {
    return this.lastTime;
  }

  /** Ends the input and returns the profile. */
  end(): Profile {
    if (this.rest) {
      const last = this.rest;
      this.rest = undefined;
      this.push(Buffer.concat([last, Buffer.from('\n')]));
    }
    if (this.open) this.finish();
    return this.profileInto(this.builder, true);
  }

  /**
   * The profile of the samples ended so far, the parser left as it was (a live run's slices, parsed once each and
   * read on): made as `end` makes it, in a builder of its own that starts with this one's frames, so ids agree.
   */
  current(): Profile {
    const own = this.builder;
    const b = new ProfileBuilder(own.format, { ...own.meta, ...(own.meta.unnamed ? { unnamed: [...own.meta.unnamed] } : {}) });
    for (const f of own.frames.frames) b.frame(f);
    for (const w of own.warnings) b.warn(w);
    return this.profileInto(b, false);
  }

  private profileInto(b: ProfileBuilder, last: boolean): Profile {
    const nodeOf = new Int32Array(this.aggCount);
    let all = 0;
    let optimized = 0;
    let wasm = 0;
    // The kernel keeps kernel.perf_event_max_stack frames (127 unless raised): stacks as deep as the deepest, at that or
    // more, were cut there.
    const cutAt = this.deepest >= PERF_DEFAULT_MAX_STACK ? this.deepest : Infinity;
    const used = new Set<string>();
    const names = this.threadNames.map((name, id) => {
      const { pid, tid } = this.threadInfos[id];
      let label = (pid !== undefined && this.threadLabel?.({ pid, tid })) || name;
      // Two threads are never one level (a pid used again by a later process): the OS thread tells them apart.
      if (used.has(label)) label = `${label} tid ${tid}`;
      used.add(label);
      return label;
    });
    const lost = new LostCallers((id) => b.frames.get(id), this.aggCount, cutAt);
    for (const head of this.stacks.values())
      for (let a: StackAgg | undefined = head; a; a = a.next) lost.add(a.id, a.frames, a.weight, a.cut, a.listed);
    const callersUnknown = lost.any ? b.frame(CALLERS_UNKNOWN) : -1;
    const tooDeep = lost.anyTooDeep ? b.frame(STACK_TOO_DEEP) : -1;
    for (const head of this.stacks.values()) {
      for (let a: StackAgg | undefined = head; a; a = a.next) {
        // Reversed in place only when the parser is done with its stacks.
        let frames: Int32Array = last ? a.frames.reverse() : a.frames.slice().reverse();
        const lostAt = lost.isLost(a.id) ? callersUnknown : lost.isTooDeep(a.id) ? tooDeep : -1;
        if (lostAt >= 0) {
          const under = new Int32Array(frames.length + 1);
          under[0] = lostAt;
          under.set(frames, 1);
          frames = under;
        }
        nodeOf[a.id] = b.sample(frames, a.weight, a.timeMs, names[a.thread]);
        all += a.weight;
        const leaf = frames.length ? b.frames.get(frames[frames.length - 1]) : undefined;
        // WebAssembly's optimized code is not JavaScript, and the other modes see no inlining in it either.
        if (leaf?.category === 'wasm') wasm += a.weight;
        else if (leaf?.tier === 'turbofan' || leaf?.tier === 'maglev') optimized += a.weight;
      }
    }
    // perf-<pid>.map names a code object, not the functions V8 inlined into it: in perf mode their time is the
    // compiler's caller's own (measured: a loop inlined 4 deep read 87 % self in its caller here, 85 % in the loop in
    // prof mode, which reads V8's inlining tables). Said once per profile where it weighs.
    if (all > 0 && optimized / all >= OPTIMIZED_NOTE_SHARE)
      b.warn(
        l10n.t(
          "{0} of the samples ran in optimized JavaScript (TurboFan or Maglev code): perf sees only the function that was compiled, so the time of functions V8 inlined into it counts as that function's own. The prof mode (--mode prof) names inlined functions separately",
          `${((optimized / all) * 100).toFixed(1)} %`,
        ),
      );
    // V8's perf map names WebAssembly code by function only: same-named functions of two modules are one row here.
    if (all > 0 && wasm / all >= WASM_NOTE_SHARE)
      b.warn(
        l10n.t(
          "{0} of the samples ran in WebAssembly: perf names its functions without their module (V8's perf map does not say which module code is in), so same-named functions of two modules are counted as one; cpu-prof mode keeps modules apart",
          `${((wasm / all) * 100).toFixed(1)} %`,
        ),
      );
    const lostNote = lost.note(all);
    if (lostNote) b.warn(lostNote);
    const deepNote = lost.tooDeepNote(all);
    if (deepNote) b.warn(deepNote);
    if (this.allWeight > 0 && this.notRecordedWeight / this.allWeight >= NOT_RECORDED_NOTE_SHARE)
      b.warn(
        l10n.t(
          "{0} of the samples are in native code that keeps no frame pointer (V8's bytecode handlers, libc's string functions, small C++ functions): perf could not see the function that called it, so a (caller not recorded) frame stands in its place. The prof and cpu-prof modes name that caller",
          `${((this.notRecordedWeight / this.allWeight) * 100).toFixed(1)} %`,
        ),
      );
    names.forEach((name, id) => b.threadInfo(name, { ...this.threadInfos[id] }));
    this.timeline(nodeOf, b);
    if (this.skipped) b.warn(l10n.t('{0} lines were not perf script samples and were skipped', String(this.skipped)));
    if (this.samples === 0) b.warn(l10n.t('no samples in the perf data'));
    if (this.firstTime <= this.lastTime) b.meta.durationMs = (this.lastTime - this.firstTime) * 1000;
    if (this.intervalMs !== undefined) b.meta.intervalMs = this.intervalMs;
    b.meta.mode ??= 'perf';
    b.meta.sampleCount = this.samples;
    return b.build();
  }
}

/** The share of samples drawn under `(caller not recorded)` from which perf mode says why. */
const NOT_RECORDED_NOTE_SHARE = 0.05;

/** The share of samples in optimized code from which perf mode says that inlined functions are not told apart. */
const OPTIMIZED_NOTE_SHARE = 0.1;
/** The share of samples in WebAssembly from which perf mode says how it names that code. */
const WASM_NOTE_SHARE = 0.03;

/** The hex number at `at` (perf's address of a frame, up to the space after it). */
function hexAt(b: Uint8Array, at: number): number {
  let v = 0;
  for (let k = at; ; k++) {
    const c = b[k] | 0x20;
    if (c >= 48 && c <= 57) v = v * 16 + c - 48;
    else if (c >= 97 && c <= 102) v = v * 16 + c - 87;
    else return v;
  }
}

function sameFrames(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface SampleFields {
  time?: string;
  period?: string;
  event: string;
  tail?: string;
  /** Where `time` starts. */
  timeAt: number;
}

/** perf script's whitespace (the latin1 part of what `\s` matches). */
const ws = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
const digit = (c: number) => c >= 48 && c <= 57;

function skip(s: string, i: number, test: (c: number) => boolean): number {
  while (i < s.length && test(s.charCodeAt(i))) i++;
  return i;
}

/**
 * `comm pid[/tid] [cpu] time: period event: tail`. The command name may hold spaces, so it is the
 * shortest prefix followed by a numeric id; cpu, time and period are each optional. Scanned once,
 * left to right: the regular expression this replaces retried every space of a long run (quadratic).
 */
function parseHeader(s: string): (SampleFields & { comm: string; first: string; second?: string }) | null {
  const n = s.length;
  for (let a = 0; a < n; ) {
    if (!ws(s.charCodeAt(a))) {
      a++;
      continue;
    }
    const b = skip(s, a, ws);
    const id = idAt(s, b);
    if (id > b) {
      let c = id;
      let second: number | undefined;
      if (s.charCodeAt(c) === 47 /* / */) {
        const t = idAt(s, c + 1);
        if (t > c + 1) {
          second = c + 1;
          c = t;
        }
      }
      const d = skip(s, c, ws);
      if (d > c && d < n) {
        const f = sampleFields(s, d, false);
        if (f)
          return {
            ...f,
            comm: s.slice(0, a),
            first: s.slice(b, second !== undefined ? second - 1 : c),
            second: second !== undefined ? s.slice(second, c) : undefined,
          };
      }
    }
    // Later starts inside this run of spaces meet the same id: go on after it.
    a = b;
  }
  return null;
}

/** End of `-?\d+` at `i`, or `i`. */
function idAt(s: string, i: number): number {
  const j = s.charCodeAt(i) === 45 /* - */ ? i + 1 : i;
  const k = skip(s, j, digit);
  return k > j ? k : i;
}

/** `[cpu] time: period event: tail` from `i` (a non-space); `needTime` for the part after a known prefix (no cpu then). */
function sampleFields(s: string, i: number, needTime: boolean): SampleFields | null {
  const n = s.length;
  // Each optional part counts only when more text follows it, as the event must.
  const then = (j: number) => {
    const k = skip(s, j, ws);
    return k > j && k < n ? k : -1;
  };
  if (!needTime && s.charCodeAt(i) === 91 /* [ */) {
    const k = skip(s, i + 1, digit);
    const next = k > i + 1 && s.charCodeAt(k) === 93 /* ] */ ? then(k + 1) : -1;
    if (next > 0) i = next;
  }
  let time: string | undefined;
  let timeAt = i;
  const k1 = skip(s, i, digit);
  if (k1 > i && s.charCodeAt(k1) === 46 /* . */) {
    const k2 = skip(s, k1 + 1, digit);
    const next = k2 > k1 + 1 && s.charCodeAt(k2) === 58 /* : */ ? then(k2 + 1) : -1;
    if (next > 0) {
      time = s.slice(i, k2);
      timeAt = i;
      i = next;
    }
  }
  if (needTime && time === undefined) return null;
  let period: string | undefined;
  const k3 = skip(s, i, digit);
  if (k3 > i) {
    const next = then(k3);
    if (next > 0) {
      period = s.slice(i, k3);
      i = next;
    }
  }
  if (i >= n || ws(s.charCodeAt(i))) return null;
  let e = i;
  while (e < n && !ws(s.charCodeAt(e))) e++;
  const event = e - i > 1 && s.charCodeAt(e - 1) === 58 /* : */ ? s.slice(i, e - 1) : s.slice(i, e);
  const tail = e < n ? s.slice(skip(s, e, ws)) : undefined;
  return { time, period, event, tail, timeAt };
}
