import * as l10n from '@vscode/l10n';
import type { ProfileBuilder, Tier } from '../../model';
import { CallSites, type CallPair, type InferenceResult, type Pending, type Site } from './callSites';
import { CodeMap, type CodeInfo } from './codeMap';
import { fixUtf8, own, parseAddress, unescapeField } from './fields';
import { logClockMark } from './clock';
import { readDeopt } from './deopts';
import { isJs, SPECIAL } from './frames';
import type { NativeResolver } from './native';
import { LineStamps } from './lineStamps';
import { AddressResolver, type Resolved } from './resolver';
import type { TimelineBuilder } from './timeline';

const VM_GC = 1;
const VM_IDLE = 8;
/** V8 majors whose log layout this reader follows (Node 8's V8 6 to Node 24's V8 13). */
const KNOWN_V8 = [6, 13];
const MAX_CODE_SIZE = 1 << 30;

/** What a stack's calls tell about lines (see callSites.ts). */
interface Calls {
  /** Calls made from known lines: they teach where a caller calls a callee. */
  sites: Site[];
  /** Calls made by frames without a line: answered from the sites at the end. */
  pairs: CallPair[];
  /** A frame without a line that makes no known call. */
  blind: boolean;
  tiers: (Tier | 'unknown')[];
  /** Marks the sites already in `sites`. */
  stamp: number;
  /** The callers' sites, when these are the leaf's. */
  base?: Site[];
}

/** A distinct tick (same pc, callback, state and frames) already turned into a tree node. */
interface CachedStack {
  node: number;
  files: string[];
  lines: number[];
  /** Index in files/lines of the leaf's own line, or -1. */
  selfAt: number;
  count: number;
  unaccounted: boolean;
  restSites: Site[];
  sites?: Site[];
  pending?: Pending;
}

interface Rest {
  node: number;
  files: string[];
  lines: number[];
  ext: boolean;
  /** Frame of the C++ callback a tick was in, or -1. */
  cbLeaf: number;
  /** Idle and GC ticks: the state is the leaf, whatever the pc. */
  fixedLeaf: boolean;
  /** By pc. */
  leaves: Map<number, CachedStack>;
  calls: Calls;
  /** The frames the leaf is called by. */
  tail: Resolved | null;
  /** Pending inference shared by leaves that add nothing to it (with the last frame left blind). */
  pending?: Pending;
  pendingBlind?: Pending;
}

function indexOfLine(files: string[], lines: number[], file: string, line: number): number {
  for (let i = 0; i < files.length; i++) if (lines[i] === line && files[i] === file) return i;
  return -1;
}

export interface IsolateOptions {
  builder: ProfileBuilder;
  native: NativeResolver;
  /** Thread name when several isolates share the profile. */
  thread?: string;
  timeline?: TimelineBuilder;
}

/** Replays one isolate's log: keeps V8's code map current and turns each tick into a sample. */
export class IsolateLog {
  private readonly code = new CodeMap();
  private readonly sfis = new Map<number, CodeInfo>();
  private readonly resolver: AddressResolver;
  /** Stacks whose line hits are not flushed yet. */
  private readonly counted: CachedStack[] = [];
  private readonly restCache = new Map<string, Rest>();
  private cacheHasUnresolved = false;
  private readonly ids: Record<keyof typeof SPECIAL, number>;
  private readonly calls: CallSites;
  private stamp = 0;
  private readonly lines = new LineStamps();
  private readonly scratch: Calls = { sites: [], pairs: [], blind: false, tiers: [], stamp: 0 };
  private inference?: InferenceResult;

  version = '';
  intervalUs = 1000;
  samples = 0;
  firstTs = NaN;
  /** The preload's clock mark: a log timestamp (µs) and the wall-clock time (epoch ms) it stands for. */
  clock?: { ts: number; epochMs: number };
  lastTs = NaN;
  minTs = NaN;
  maxTs = NaN;
  private prevTs = NaN;
  unaccountedTicks = 0;
  /** Unaccounted ticks whose pc V8 logged as 0: the sampler could not read the thread's registers. */
  noPcTicks = 0;
  droppedFrames = 0;
  workerHint = false;
  readonly malformed = new Map<string, number>();
  /** Ticks through JS code without source positions, by tier (known once `finish` ran). */
  get linelessTicks(): Map<Tier | 'unknown', number> {
    return this.inference?.byTier ?? new Map();
  }

  constructor(private readonly o: IsolateOptions) {
    const b = o.builder;
    this.ids = { idle: b.frame(SPECIAL.idle), gc: b.frame(SPECIAL.gc), unaccounted: b.frame(SPECIAL.unaccounted) };
    this.calls = new CallSites(b.frames);
    this.resolver = new AddressResolver(this.code, o.native, b);
  }

  /** Handles one log line; returns a promise only while C++ symbols are still loading. */
  line(line: string): void | Promise<void> {
    const c = line.charCodeAt(0);
    if (c === 116 /* t */ && line.startsWith('tick,')) return this.tick(line);
    if (c === 99 /* c */) {
      if (line.startsWith('code-creation,')) return this.codeCreation(line);
      if (line.startsWith('code-source-info,')) return this.codeSourceInfo(line);
      if (line.startsWith('code-move,')) return this.codeMove(line);
      if (line.startsWith('code-delete,')) return this.codeDelete(line);
      if (line.startsWith('code-deopt,')) return void (readDeopt(line, this.code, this.o.builder) || this.bad('code-deopt'));
      return;
    }
    if (c === 115 /* s */) {
      if (line.startsWith('sfi-move,')) return this.sfiMove(line);
      if (line.startsWith('script-source,')) return this.scriptSource(line);
      if (line.startsWith('shared-library,')) return this.sharedLibrary(line);
      return;
    }
    if (line.startsWith('new,CodeRange,')) {
      const a = parseAddress(line.split(',')[2]);
      if (!isNaN(a) && isNaN(this.resolver.codeRange)) this.resolver.codeRange = a;
      return;
    }
    if (line.startsWith('v8-version,')) {
      this.version = own(line.split(',').slice(1, 5).join('.'));
      return;
    }
    if (line.startsWith('profiler,begin,')) {
      const us = +line.split(',')[2];
      if (us > 0) this.intervalUs = us;
    }
  }

  private bad(kind: string): void {
    this.malformed.set(kind, (this.malformed.get(kind) ?? 0) + 1);
  }

  private sharedLibrary(line: string): void {
    const f = line.split(',');
    const start = parseAddress(f[2]);
    const end = parseAddress(f[3]);
    if (isNaN(start) || isNaN(end)) return this.bad('shared-library');
    this.o.native.addLibrary(own(unescapeField(fixUtf8(f[1]))), start, end);
  }

  private codeCreation(line: string): void {
    const f = line.split(',');
    // V8 ≥ 5.x writes a timestamp before the address; older logs do not.
    const at = !isNaN(parseAddress(f[4])) ? 4 : !isNaN(parseAddress(f[3])) ? 3 : -1;
    if (at < 0 || f.length < at + 2) return this.bad('code-creation');
    const start = parseAddress(f[at]);
    const size = +f[at + 1];
    // No code object is near 1 GiB; a size like that is damage and would make the page walk endless.
    if (!(size >= 0 && size < MAX_CODE_SIZE)) return this.bad('code-creation');
    const type = f[1];
    const info: CodeInfo = {
      type,
      name: f.length > at + 2 ? own(unescapeField(fixUtf8(f[at + 2]))) : '',
      tierMark: f.length > at + 4 ? f[at + 4] : '',
      sfi: f.length > at + 3 ? parseAddress(f[at + 3]) : NaN,
    };
    if (!isNaN(info.sfi) && isJs(info)) this.sfis.set(info.sfi, info);
    if (type === 'JS' && at === 4 && this.clock === undefined) {
      const epochMs = logClockMark(info.name);
      if (epochMs !== undefined) this.clock = { ts: +f[3], epochMs };
    }
    if ((type === 'Builtin' || type === 'BytecodeHandler') && this.o.native.mainLibrary) {
      const main = this.o.native.mainLibrary;
      if (start >= main.start && start < main.end && this.resolver.noteBuiltin(start, size)) this.cacheHasUnresolved = true;
    }
    if (!this.workerHint && info.name.startsWith('node:internal/main/worker_thread')) this.workerHint = true;
    if (!this.workerHint && type !== 'Builtin' && info.name.includes('node:internal/main/worker_thread')) this.workerHint = true;
    const gen = this.code.generation;
    this.code.add(start, size, info);
    // New code can only change answers for addresses that were unresolved or that it overwrote.
    if (this.code.generation !== gen || this.cacheHasUnresolved) this.invalidate();
  }

  private codeMove(line: string): void {
    const f = line.split(',');
    const from = parseAddress(f[1]);
    const to = parseAddress(f[2]);
    if (isNaN(from) || isNaN(to)) return this.bad('code-move');
    if (this.code.move(from, to)) this.invalidate();
  }

  private codeDelete(line: string): void {
    const a = parseAddress(line.split(',')[1]);
    if (isNaN(a)) return this.bad('code-delete');
    if (this.code.delete(a)) this.invalidate();
  }

  private sfiMove(line: string): void {
    const f = line.split(',');
    const from = parseAddress(f[1]);
    const to = parseAddress(f[2]);
    if (isNaN(from) || isNaN(to)) return this.bad('sfi-move');
    const info = this.sfis.get(from);
    if (info) {
      this.sfis.delete(from);
      this.sfis.set(to, info);
    }
  }

  private scriptSource(line: string): void {
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const c3 = line.indexOf(',', c2 + 1);
    const id = +line.slice(c1 + 1, c2);
    if (c3 < 0 || !(id >= 0)) return this.bad('script-source');
    this.resolver.addScript(id, own(unescapeField(fixUtf8(line.slice(c2 + 1, c3)))), own(line.slice(c3 + 1)));
  }

  private codeSourceInfo(line: string): void {
    const f = line.split(',');
    const start = parseAddress(f[1]);
    if (isNaN(start) || f.length < 6) return this.bad('code-source-info');
    const e = this.code.get(start);
    if (!e) return;
    // Most code never shows up in a tick: keep the text and parse it when it does. Inlined
    // functions are looked up now, while their SharedFunctionInfo addresses are current.
    const fns = f[7]
      ? f[7]
          .split('S')
          .filter(Boolean)
          .map((a) => this.sfis.get(parseInt(a, 16)))
      : [];
    e.info.rawPositions = { scriptId: +f[2], positions: own(f[5]), inlinings: own(f[6] ?? ''), fns };
    e.info.positions = undefined;
    this.resolver.positionsChanged(e.info);
  }

  private invalidate(): void {
    if (this.restCache.size === 0) return;
    this.flush();
    this.restCache.clear();
    this.cacheHasUnresolved = false;
  }

  /** Adds the line hits of cached stacks counted since the last flush. */
  flush(): void {
    const b = this.o.builder;
    for (const s of this.counted) {
      if (!s.count) continue;
      for (let i = 0; i < s.files.length; i++) b.lineHit(s.files[i], s.lines[i], i === s.selfAt ? s.count : 0, s.count);
      for (const site of s.restSites) site.weight += s.count;
      if (s.sites) for (const site of s.sites) site.weight += s.count;
      if (s.pending) s.pending.count += s.count;
      s.count = 0;
    }
    this.counted.length = 0;
  }

  /** Flushes, then gives frames without a line the lines their calls were seen at. */
  finish(): void {
    this.flush();
    const b = this.o.builder;
    this.inference = this.calls.infer((file, line, total) => b.lineHit(file, line, 0, total));
  }

  private tick(line: string): void | Promise<void> {
    const c2 = line.indexOf(',', 5);
    const c3 = line.indexOf(',', c2 + 1);
    if (c2 < 0 || c3 < 0) return this.bad('tick');
    const ts = +line.slice(c2 + 1, c3);
    if (!(ts >= 0 && ts < Infinity)) return this.bad('tick');
    // Stacks repeat far more than pcs do: one entry per distinct callers' text, pcs below it.
    const pcText = line.slice(5, c2);
    const pcKey = parseInt(pcText, 16);
    const relative = line.indexOf(',+', c3) >= 0 || line.indexOf(',-', c3) >= 0;
    const restKey = relative ? pcText + line.slice(c3) : line.slice(c3);
    let rest = this.restCache.get(restKey);
    let s = rest?.leaves.get(pcKey);
    if (!s) {
      if (this.o.native.loading) return this.o.native.ready().then(() => this.tick(line));
      const f = line.split(',');
      const pc = parseAddress(f[1]);
      if (isNaN(pc) && f[1] !== '0x0') return this.bad('tick');
      if (!rest) {
        const built = this.buildRest(f, pc);
        if (!built) return this.bad('tick');
        this.restCache.set(own(restKey), (rest = built));
      }
      s = this.withLeaf(rest, pc);
      rest.leaves.set(pcKey, s);
      this.counted.push(s);
    } else if (s.count === 0) this.counted.push(s);
    s.count++;
    this.samples++;
    if (s.unaccounted) {
      this.unaccountedTicks++;
      if (pcKey === 0) this.noPcTicks++;
    }
    if (isNaN(this.firstTs)) this.firstTs = ts;
    // Threads' ticks can arrive slightly out of order: the span is from the earliest to the latest.
    if (!(ts >= this.minTs)) this.minTs = ts;
    if (!(ts <= this.maxTs)) this.maxTs = ts;
    const gap = isNaN(this.prevTs) ? this.intervalUs : Math.min(Math.max(ts - this.prevTs, 0), this.intervalUs * 10);
    this.prevTs = ts;
    this.lastTs = ts;
    this.o.builder.tree.addSelf(s.node, 1, gap / 1000);
    const tl = this.o.timeline;
    if (tl) tl.push(s.node, (ts - this.firstTs) / 1000);
  }

  /**
   * Everything but the pc: the callers (and the C++ callback) of a tick. Ticks in a hot C++ loop
   * differ only by pc, so the callers are resolved once and shared.
   */
  private buildRest(f: string[], pc: number): Rest | null {
    if (f.length < 6) return null;
    const vm = +f[5];
    const leafFirst: Resolved[] = [];
    let unresolved = false;
    let cbLeaf = -1;
    const ext = f[3] === '1';
    const fixedLeaf = vm === VM_IDLE || vm === VM_GC;
    const single = (id: number): Resolved => ({ ids: [id], files: [], lines: [], js: false });
    if (vm === VM_IDLE) leafFirst.push(single(this.ids.idle));
    else {
      if (vm === VM_GC) leafFirst.push(single(this.ids.gc));
      else if (ext) {
        // In a C++ callback the pc may be deep in code it called (OpenSSL); the callback is its caller.
        const cb = this.resolver.resolve(parseAddress(f[4]), false);
        if (cb) {
          leafFirst.push(cb);
          cbLeaf = cb.ids[cb.ids.length - 1];
        }
      } else {
        const tos = parseAddress(f[4]);
        // A frameless call: the top of stack is a return address into JS code.
        if (tos > 0) {
          const e = this.code.find(tos);
          if (e && isJs(e.info)) {
            const r = this.resolver.resolve(tos, true);
            if (r) leafFirst.push(r);
          }
        }
      }
      let prev = pc;
      for (let i = 6; i < f.length; i++) {
        const t = f[i];
        const ch = t.charCodeAt(0);
        let addr: number;
        if (ch === 43 /* + */ || ch === 45 /* - */) addr = prev + parseInt(t, 16);
        else if (ch === 48 /* 0 */) addr = parseAddress(t);
        else continue; // `overflow` and other markers
        prev = addr;
        if (!(addr > 0)) continue;
        const r = this.resolver.resolve(addr, true);
        if (r) leafFirst.push(r);
        else {
          this.droppedFrames++;
          unresolved = true;
        }
      }
    }
    const stack: number[] = [];
    const files: string[] = [];
    const lines: number[] = [];
    // Each line once, in the order first met: a stamp per line, not a scan of the ~60 lines of a deep stack.
    const stamp = this.lines.stamp();
    for (let g = leafFirst.length - 1; g >= 0; g--) {
      const r = leafFirst[g];
      for (const id of r.ids) stack.push(id);
      if (r.files.length === 0) continue;
      const keys = (r.lineKeys ??= this.lines.keys(r.files, r.lines));
      for (let k = 0; k < keys.length; k++) {
        if (this.lines.mark(keys[k], stamp)) {
          files.push(r.files[k]);
          lines.push(r.lines[k]);
        }
      }
    }
    if (unresolved) this.cacheHasUnresolved = true;
    const node = this.o.builder.sample(stack, 0, 0, this.o.thread);
    const calls: Calls = { sites: [], pairs: [], blind: false, tiers: [], stamp: ++this.stamp };
    let tail: Resolved | null = null;
    for (let g = leafFirst.length - 1; g >= 0; g--) tail = this.chain(tail, leafFirst[g], calls);
    return { node, files, lines, ext, cbLeaf, fixedLeaf, leaves: new Map(), calls, tail };
  }

  /** Puts the pc's frame on top of the callers. */
  private withLeaf(rest: Rest, pc: number): CachedStack {
    const out: CachedStack = {
      node: rest.node,
      files: rest.files,
      lines: rest.lines,
      selfAt: -1,
      count: 0,
      unaccounted: false,
      restSites: rest.calls.sites,
    };
    const leaf = this.leafOf(rest, pc, out);
    if (leaf) {
      const tree = this.o.builder.tree;
      for (const id of leaf.ids) out.node = tree.child(out.node, id);
      if (leaf.files.length) {
        out.files = rest.files.slice();
        out.lines = rest.lines.slice();
        for (let k = 0; k < leaf.files.length; k++) {
          let at = indexOfLine(out.files, out.lines, leaf.files[k], leaf.lines[k]);
          if (at < 0) {
            at = out.files.length;
            out.files.push(leaf.files[k]);
            out.lines.push(leaf.lines[k]);
          }
          if (k === leaf.files.length - 1 && leaf.js) out.selfAt = at;
        }
      }
    }
    this.learn(out, rest, leaf);
    return out;
  }

  /** The pc's frames, or null when the callers' stack already ends where the tick was. */
  private leafOf(rest: Rest, pc: number, out: CachedStack): Resolved | null {
    if (rest.fixedLeaf) return null;
    const leaf = this.resolver.resolve(pc, false);
    if (!leaf) {
      if (rest.cbLeaf >= 0) return null;
      this.cacheHasUnresolved = true;
      out.unaccounted = true;
      return { ids: [this.ids.unaccounted], files: [], lines: [], js: false };
    }
    return leaf.ids[leaf.ids.length - 1] === rest.cbLeaf ? null : leaf;
  }

  /** The calls between the callers and the pc's frames (null: none of their own), and what is left for inference. */
  private learn(out: CachedStack, rest: Rest, leaf: Resolved | null): void {
    const rc = rest.calls;
    // One scratch record: a new stack is made for every new pc, and most add nothing here.
    const c = this.scratch;
    c.sites.length = 0;
    c.pairs = rc.pairs;
    c.blind = rc.blind;
    c.tiers = rc.tiers;
    c.stamp = ++this.stamp;
    c.base = rc.sites;
    let tail = rest.tail;
    if (leaf) {
      tail = this.chain(tail, leaf, c);
      if (c.sites.length) out.sites = c.sites.slice();
    }
    // The last frame makes no call: if it has no line, nothing tells which.
    if (tail?.lineless) {
      c.blind = true;
      if (!c.tiers.includes(tail.lineless)) c.tiers = [...c.tiers, tail.lineless];
    }
    if (!c.pairs.length && !c.blind) return;
    // Most leaves add no call and no line to their callers': those share one record.
    const plain = out.files === rest.files && c.pairs === rc.pairs && c.tiers === rc.tiers;
    if (plain && c.blind === rc.blind && rest.pending) out.pending = rest.pending;
    else if (plain && c.blind && rest.pendingBlind) out.pending = rest.pendingBlind;
    else {
      out.pending = this.calls.pendingFor(c.pairs, c.blind, c.tiers, out.files, out.lines);
      if (plain && c.blind === rc.blind) rest.pending = out.pending;
      else if (plain && c.blind) rest.pendingBlind = out.pending;
    }
  }

  /**
   * Records the calls into and inside a frame group (`prev` is the group it is called from) and
   * returns the group, whose last frame calls whatever comes next.
   */
  private chain(prev: Resolved | null, r: Resolved, c: Calls): Resolved {
    if (prev) this.call(prev, prev.ids.length - 1, r.ids[0], c);
    // Inside a group: an inlining caller at its call site calls the inlined function.
    for (let k = 0; k + 1 < r.ids.length; k++) this.call(r, k, r.ids[k + 1], c);
    return r;
  }

  private call(from: Resolved, k: number, callee: number, c: Calls): void {
    const caller = from.ids[k];
    if (from.lineless) {
      const p = this.calls.pair(caller, callee);
      if (p) {
        // Copy on write: a Rest's arrays are shared by its leaves.
        if (!c.pairs.includes(p)) c.pairs = [...c.pairs, p];
      } else c.blind = true;
      if (!c.tiers.includes(from.lineless)) c.tiers = [...c.tiers, from.lineless];
      return;
    }
    const at = from.at ? from.at[k] : k < from.lines.length ? k : -1;
    if (at < 0) return;
    const s = this.calls.site(caller, callee, from.files[at], from.lines[at]);
    if (s && s.stamp !== c.stamp && !c.base?.includes(s)) {
      s.stamp = c.stamp;
      c.sites.push(s);
    }
  }

  /** Plain-words notes on what this isolate's log left out. */
  notes(file: string, mapsSaved = false): string[] {
    const out: string[] = [];
    const major = parseInt(this.version, 10);
    if (major < KNOWN_V8[0] || major > KNOWN_V8[1]) {
      out.push(
        l10n.t(
          '{0} was written by V8 {1}, whose log format Node Flame was not made for (V8 {2} to {3}): records it cannot read are skipped and counted below',
          file,
          this.version,
          KNOWN_V8[0],
          KNOWN_V8[1],
        ),
      );
    }
    if (this.code.clamped)
      out.push(
        l10n.t(
          '{0}: {1} code objects claim sizes past 256 MiB of code in all; ticks are looked up in their first 64 KiB only',
          file,
          this.code.clamped,
        ),
      );
    for (const [kind, n] of this.malformed)
      out.push(l10n.t('{0}: skipped {1} malformed "{2}" records (V8 {3})', file, n, kind, this.version || '?'));
    if (this.resolver.inferredRemap)
      out.push(
        mapsSaved
          ? l10n.t(
              "{0}: builtins ran from a copy that neither the log nor the saved proc-maps file lists (--short-builtin-calls; a worker's copy is gone by the time the maps are saved at exit); its place was inferred from the code range",
              file,
            )
          : l10n.t(
              '{0}: builtins ran from a copy the log does not list (--short-builtin-calls); its place was inferred from the code range because no proc-maps file was saved beside the log',
              file,
            ),
      );
    const inf = this.inference;
    if (inf && inf.total) {
      const tiers = [...inf.byTier].map(([t, k]) => `${t} ${k}`).join(', ');
      out.push(
        l10n.t(
          '{0}: {1} of {2} ticks went through JavaScript code V8 logged without source positions ({3}). Call-site inference (the line the same function calls the same callee from where positions are logged) gave a line to every such frame in {4} of them and to some in {5}; {6} stayed without. Frames left without a line count for their functions but not in per-line heat',
          file,
          inf.total,
          this.samples,
          tiers,
          inf.inferred,
          inf.partly,
          inf.none,
        ),
      );
    }
    if (this.noPcTicks > 0) {
      out.push(
        l10n.t(
          '{0}: {1} of {2} ticks have no program counter (V8 logged pc 0: it could not sample the thread), so they stay unaccounted',
          file,
          this.noPcTicks,
          this.samples,
        ),
      );
    }
    const outside = this.unaccountedTicks - this.noPcTicks;
    if (outside > 0) {
      out.push(l10n.t('{0}: {1} of {2} ticks had a program counter outside any known code (unaccounted)', file, outside, this.samples));
    }
    return out;
  }
}
