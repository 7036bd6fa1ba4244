import * as l10n from '@vscode/l10n';
import { isDefaultWasmName, type ProfileBuilder, type Tier } from '../../model';
import { CallSites, type CallPair, type InferenceResult, type Pending, type Site } from './callSites';
import { CodeMap, type CodeInfo } from './codeMap';
import { fileUrlToPathAnyOs } from '../../paths';
import { fixUtf8, LineFields, own, parseAddress, unescapeField } from './fields';
import { logClockMark } from './clock';
import { readDeopt } from './deopts';
import { isJs, JS_TYPES, SPECIAL, WASM_TYPE } from './frames';
import type { NativeResolver } from './native';
import { LineStamps } from './lineStamps';
import { TickFields } from './tickFields';
import { CallerPath } from './callerPath';
import { AddressResolver, resolved, type Resolved } from './resolver';
import { grownLater } from './grownLater';
import { deepStacksNote, heaviest, STACK_TOO_DEEP, TOO_DEEP_NOTE_SHARE, V8_MAX_FRAMES } from '../deepStacks';
import type { TimelineBuilder } from './timeline';

const VM_GC = 1;
const VM_IDLE = 8;
/** V8 majors whose log layout this reader follows (Node 8's V8 6 to Node 24's V8 13). */
const KNOWN_V8 = [6, 13];
const MAX_CODE_SIZE = 1 << 30;
/** The start of a record: its kind and a comma (`tick,`, `code-creation,`); not the rest of a name a line break cut. */
const RECORD_START = /^[a-z][a-zA-Z0-9-]*,/;
const NO_KEY = Buffer.alloc(0);
/**
 * Callers' stacks kept for the ticks to come, at most. A compiler's ticks rarely repeat their callers (tsc: 5 153
 * distinct of 5 914 ticks), and a long log of such ticks would keep them all; a hot loop's few fit many times over.
 * (Bounds of 256 and 1 024 made no difference to tsc's CPU, within the noise of a loaded machine.)
 */
const MAX_RESTS = 8192;

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
  /** Whether `pairs` and `tiers` are this record's own, to add to in place; else they are copied first (shared with a Rest). */
  ownPairs: boolean;
  ownTiers: boolean;
  /** The callers' sites, when these are the leaf's. */
  base?: Site[];
}

/** A distinct tick (same pc, callback, state and frames) already turned into a tree node. */
interface CachedStack {
  node: number;
  /** Its lines, as numbers of the isolate's LineStamps. */
  keys: number[];
  /** Index in keys of the leaf's own line, or -1. */
  selfAt: number;
  count: number;
  unaccounted: boolean;
  restSites: Site[];
  sites?: Site[];
  pending?: Pending;
}

interface Rest {
  /** The callers' text it was built from (TickFields.key), and the next stack whose text has the same hash. */
  key: Buffer;
  sameHash: Rest | undefined;
  node: number;
  keys: number[];
  ext: boolean;
  /** Frame of the C++ callback a tick was in, or -1. */
  cbLeaf: number;
  /** Idle and GC ticks: the state is the leaf, whatever the pc. */
  fixedLeaf: boolean;
  /** Cut at V8's depth limit: the frame the cut fell in (the outermost one logged), else -1. */
  cutAt: number;
  /**
   * By pc: the first one met in fields of its own, the others in a map made for a second pc (a compiler's stacks
   * rarely come twice, and a map per stack was a good part of what the reader allocated per tick).
   */
  firstPc: number;
  first: CachedStack | undefined;
  leaves: Map<number, CachedStack> | undefined;
  calls: Calls;
  /** The frames the leaf is called by. */
  tail: Resolved | null;
  /** Pending inference shared by leaves that add nothing to it (with the last frame left blind). */
  pending?: Pending;
  pendingBlind?: Pending;
}

/** The code types V8 writes, one string each: a code object keeps its type for as long as the log is read. */
const CODE_TYPES = new Map<string, string>();

/** Names of WebAssembly functions kept to see two modules share one (a damaged log could name endless ones). */
const MAX_WASM_NAMES = 1 << 16;

function codeType(t: string): string {
  const known = CODE_TYPES.get(t);
  if (known !== undefined) return known;
  // A damaged log could name endless types; past a few dozen they are kept as they come.
  if (CODE_TYPES.size < 64) CODE_TYPES.set(t, own(t));
  return t;
}

/**
 * `JS` code that is WebAssembly: logged as kind 4 (V8's CodeKind::WASM_FUNCTION since V8 9), named without a script
 * (`wasm-function[3]`, or the module's name for it) and with no tier mark for Liftoff's code; logs without the kind
 * field are told by V8's default name. Its "SFI" field is V8's native module pointer plus the function's index.
 */
function isWasmCode(kind: string, name: string): boolean {
  return kind ? kind === '4' : isDefaultWasmName(name);
}

/** `a` cut back to its first `n` elements, in place. */
function cut<T>(a: T[], n: number): T[] {
  a.length = n;
  return a;
}

/** A state (idle, GC) as the one frame on top of the callers. */
function single(id: number): Resolved {
  return resolved([id], [], [], false);
}

function addTier(c: Calls, t: Tier | 'unknown'): void {
  if (!c.ownTiers) {
    c.tiers = c.tiers.slice();
    c.ownTiers = true;
  }
  c.tiers.push(t);
}

export interface IsolateOptions {
  builder: ProfileBuilder;
  native: NativeResolver;
  /** Thread name when several isolates share the profile. */
  thread?: string;
  timeline?: TimelineBuilder;
  /** False: every stack resolved from its first caller (the answers are the same; a test compares the two). */
  reuseCallers?: boolean;
  /** Callers' stacks kept at most (the answers are the same whatever it is; a test compares). */
  maxRests?: number;
  /** False: return addresses' answers are not kept (the answers are the same; a test compares). */
  keepReturns?: boolean;
}

/** Replays one isolate's log: keeps V8's code map current and turns each tick into a sample. */
export class IsolateLog {
  private readonly code = new CodeMap();
  private readonly sfis = new Map<number, CodeInfo>();
  private readonly resolver: AddressResolver;
  /** Stacks whose line hits are not flushed yet. */
  private readonly counted: CachedStack[] = [];
  /** Callers' stacks by the hash of their text (TickFields.keyHash); those sharing a hash are chained. */
  private readonly restCache = new Map<number, Rest>();
  private restCount = 0;
  private cacheHasUnresolved = false;
  private readonly ids: Record<keyof typeof SPECIAL, number>;
  private readonly calls: CallSites;
  private stamp = 0;
  private readonly lines = new LineStamps();
  private readonly fields = new TickFields();
  private readonly record = new LineFields();
  private readonly path = new CallerPath();
  // Room for the deepest tick V8 writes (255 frames) from the start: growing it mid-log made the optimized code bail out.
  private addrs = new Float64Array(512);
  private readonly scratch: Calls = {
    sites: [],
    pairs: [],
    blind: false,
    tiers: [],
    stamp: 0,
    ownPairs: false,
    ownTiers: false,
    base: undefined,
  };
  private inference?: InferenceResult;
  /**
   * A JavaScript code record cut short by a line break in its function's name (V8 writes those names unescaped:
   * `obj['a\nb']`): the next line, unless a record starts there, is the rest of it.
   */
  private cutRecord: string | undefined;

  version = '';
  intervalUs = 1000;
  samples = 0;
  /** Ticks cut at V8's depth limit, by the frame the cut fell in; STACK_TOO_DEEP's id once one was. */
  private readonly cutTicks = new Map<number, number>();
  private tooDeepId: number | undefined;
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
  /** Caller frames of the stacks built, and how many of them came from the stack built before. */
  callerFrames = 0;
  reusedCallerFrames = 0;
  workerHint = false;
  /**
   * Each WebAssembly function name's V8 tag (its module's pointer plus its index: the same for each tier's code), and
   * the first name two functions shared: the log names no module, so such functions are counted as one.
   */
  private readonly wasmTags = new Map<string, number>();
  private wasmSharedName: string | undefined;
  /** Return addresses answered from kept answers, and kept answers found stale (their code moved, or was replaced). */
  get keptReturns(): { used: number; stale: number } {
    return { used: this.resolver.keptReturnsUsed, stale: this.resolver.keptReturnsStale };
  }
  readonly malformed = new Map<string, number>();
  /** Ticks through JS code without source positions, by tier (known once `finish` ran). */
  get linelessTicks(): Map<Tier | 'unknown', number> {
    return this.inference?.byTier ?? new Map();
  }

  constructor(private readonly o: IsolateOptions) {
    grownLater(this, 'addrs');
    const b = o.builder;
    this.ids = { idle: b.frame(SPECIAL.idle), gc: b.frame(SPECIAL.gc), unaccounted: b.frame(SPECIAL.unaccounted) };
    this.calls = new CallSites(b.frames);
    this.resolver = new AddressResolver(this.code, o.native, b, o.keepReturns ?? true);
  }

  /**
   * Handles the log line `buf[start, end)`: a tick read in place (ticks are most of a log's bytes), any other record
   * as a string, which `seen` sees first. Returns a promise only while C++ symbols are still loading.
   */
  lineAt(buf: Buffer, start: number, end: number, seen?: (line: string) => void): void | Promise<void> {
    if (this.cutRecord !== undefined && this.rejoined(buf.toString('latin1', start, end))) return;
    if (
      end - start >= 5 &&
      buf[start] === 116 &&
      buf[start + 1] === 105 &&
      buf[start + 2] === 99 &&
      buf[start + 3] === 107 &&
      buf[start + 4] === 44
    )
      return this.tickAt(buf, start, end);
    const line = buf.toString('latin1', start, end);
    seen?.(line);
    return this.line(line);
  }

  /** Handles one log line; returns a promise only while C++ symbols are still loading. */
  line(line: string): void | Promise<void> {
    if (this.cutRecord !== undefined && this.rejoined(line)) return;
    const c = line.charCodeAt(0);
    if (c === 116 /* t */ && line.startsWith('tick,')) return this.tickAt(Buffer.from(line, 'latin1'), 0, line.length);
    if (c === 99 /* c */) {
      if (line.startsWith('code-creation,')) return this.codeCreation(line);
      if (line.startsWith('code-source-info,')) return this.codeSourceInfo(line);
      if (line.startsWith('code-move,')) return this.codeMove(line);
      if (line.startsWith('code-delete,')) return this.codeDelete(line);
      if (line.startsWith('code-deopt,'))
        return void (readDeopt(line, this.code, this.o.builder, this.resolver.isScript) || this.bad('code-deopt'));
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

  /** Whether `line` was the rest of the cut record (which is then read again whole, in place of its first part). */
  private rejoined(line: string): boolean {
    const first = this.cutRecord!;
    this.cutRecord = undefined;
    if (RECORD_START.test(line)) return false;
    this.codeCreation(`${first}\n${line}`);
    return true;
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
    const f = this.record;
    const n = f.read(line);
    // V8 ≥ 5.x writes a timestamp before the address; older logs do not.
    const at = !isNaN(f.address(4)) ? 4 : !isNaN(f.address(3)) ? 3 : -1;
    if (at < 0 || n < at + 2) return this.bad('code-creation');
    const start = f.address(at);
    const size = +f.text(at + 1)!;
    // No code object is near 1 GiB; a size like that is damage and would make the page walk endless.
    if (!(size >= 0 && size < MAX_CODE_SIZE)) return this.bad('code-creation');
    let type = codeType(f.text(1)!);
    // JavaScript code ends in its SharedFunctionInfo's address and a tier mark. Its name comes before them unescaped:
    // a comma in it (`obj['a, b']`) makes more fields, a line break fewer (the rest is on the next line).
    const js = JS_TYPES.has(type);
    const nameEnd = js && n > at + 5 && !isNaN(f.address(n - 2)) ? n - 3 : at + 2;
    if (js && n === at + 3) this.cutRecord = line;
    const rawName = n > at + 2 ? f.span(at + 2, nameEnd) : '';
    if (type === 'JS' && isWasmCode(at === 4 ? f.text(2)! : '', rawName)) type = WASM_TYPE;
    const info: CodeInfo = {
      type,
      name: rawName ? own(unescapeField(fixUtf8(rawName))) : '',
      tierMark: n > nameEnd + 2 ? f.text(nameEnd + 2)! : '',
      sfi: n > nameEnd + 1 ? f.address(nameEnd + 1) : NaN,
      positions: undefined,
      rawPositions: undefined,
      frameId: -1,
      inlinedId: -1,
      inlinedTier: undefined,
      answers: undefined,
    };
    if (!isNaN(info.sfi) && isJs(info)) this.sfis.set(info.sfi, info);
    if (type === WASM_TYPE && !isNaN(info.sfi) && this.wasmSharedName === undefined) {
      const tag = this.wasmTags.get(info.name);
      if (tag === undefined) {
        if (this.wasmTags.size < MAX_WASM_NAMES) this.wasmTags.set(info.name, info.sfi);
      } else if (tag !== info.sfi) this.wasmSharedName = info.name;
    }
    if (type === 'JS' && at === 4 && this.clock === undefined) {
      const epochMs = logClockMark(info.name);
      if (epochMs !== undefined) this.clock = { ts: +f.text(3)!, epochMs };
    }
    if ((type === 'Builtin' || type === 'BytecodeHandler') && this.o.native.mainLibrary) {
      const main = this.o.native.mainLibrary;
      if (start >= main.start && start < main.end && this.resolver.noteBuiltin(start, size)) this.cacheHasUnresolved = true;
    }
    if (!this.workerHint && info.name.startsWith('node:internal/main/worker_thread')) this.workerHint = true;
    if (!this.workerHint && type !== 'Builtin' && info.name.includes('node:internal/main/worker_thread')) this.workerHint = true;
    const gen = this.code.generation;
    const added = this.code.add(start, size, info);
    this.path.codeAdded(added.start, added.start + added.size);
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
    // Each line is a string of its own (not a slice of a read chunk): the text may stay a slice of it, uncopied.
    // Named as codeFrame names its functions' files (an ES module's URL as its path): lines and lookups by name agree.
    this.resolver.addScript(id, own(fileUrlToPathAnyOs(unescapeField(fixUtf8(line.slice(c2 + 1, c3))))), line.slice(c3 + 1));
  }

  private codeSourceInfo(line: string): void {
    const f = this.record;
    const n = f.read(line);
    const start = f.address(1);
    if (isNaN(start) || n < 6) return this.bad('code-source-info');
    const e = this.code.get(start);
    if (!e) return;
    // Most code never shows up in a tick: keep the text and parse it when it does. Inlined
    // functions are looked up now, while their SharedFunctionInfo addresses are current.
    const inlined = f.text(7);
    const fns = inlined
      ? inlined
          .split('S')
          .filter(Boolean)
          .map((a) => this.sfis.get(parseInt(a, 16)))
      : [];
    e.info.rawPositions = { scriptId: +f.text(2)!, positions: f.text(5)!, inlinings: f.text(6) ?? '', fns };
    e.info.positions = undefined;
    e.info.inlinedId = -1;
    this.resolver.positionsChanged(e.info);
  }

  private invalidate(): void {
    this.path.reset();
    if (this.restCount === 0) return;
    this.flush();
    this.restCache.clear();
    this.restCount = 0;
    this.cacheHasUnresolved = false;
  }

  /** Forgets the cached stacks (their hits flushed first): a cache of stacks that mostly never come again is only held memory. */
  private dropRests(): void {
    this.flush();
    this.restCache.clear();
    this.restCount = 0;
  }

  /** Adds up the line hits of cached stacks counted since the last flush (the profile gets them at `finish`). */
  flush(): void {
    const lines = this.lines;
    // Indexed loops here and in the other per-tick paths: `for…of` makes an iterator result per element until the
    // code is optimized, and a log is read in good part before it is.
    const counted = this.counted;
    for (let c = 0; c < counted.length; c++) {
      const s = counted[c];
      if (!s.count) continue;
      const keys = s.keys;
      for (let i = 0; i < keys.length; i++) lines.hit(keys[i], i === s.selfAt ? s.count : 0, s.count);
      const rs = s.restSites;
      for (let i = 0; i < rs.length; i++) rs[i].weight += s.count;
      const ls = s.sites;
      if (ls) for (let i = 0; i < ls.length; i++) ls[i].weight += s.count;
      if (s.pending) s.pending.count += s.count;
      s.count = 0;
    }
    this.counted.length = 0;
  }

  /** Flushes, then gives frames without a line the lines their calls were seen at. */
  finish(): void {
    const b = this.o.builder;
    this.finishSoFar((file, line, total) => b.lineHit(file, line, 0, total));
  }

  /**
   * `finish` for a log still being written (tail.ts): the line hits so far go to the builder as `finish` gives them,
   * the inferred ones to `hit` (the caller's copy, as inference is redone from all calls seen at each read), and
   * the log may be read on.
   */
  finishSoFar(hit: (file: string, line: number, total: number) => void): void {
    this.flush();
    this.lines.drain(this.o.builder);
    this.inference = this.calls.infer(hit);
  }

  /** Handles one `tick` line, read from its bytes (see tickFields.ts); a promise only while C++ symbols load. */
  tickAt(buf: Buffer, start: number, end: number): void | Promise<void> {
    const f = this.fields;
    const n = f.read(buf, start, end);
    if (n < 4) return this.bad('tick');
    const ts = f.number(2);
    if (!(ts >= 0 && ts < Infinity)) return this.bad('tick');
    // Stacks repeat far more than pcs do: one entry per distinct callers' text, pcs below it.
    const pcKey = f.int16(1);
    // Relative addresses make the callers' text depend on the pc: it is part of the key then.
    const withPc = f.hasRelative(2);
    const hash = f.keyHash(withPc);
    let rest = this.restCache.get(hash);
    while (rest && !f.isKey(rest.key, withPc)) rest = rest.sameHash;
    let s = rest === undefined ? undefined : rest.firstPc === pcKey ? rest.first : rest.leaves?.get(pcKey);
    if (!s) {
      if (this.o.native.loading) return this.o.native.ready().then(() => this.tickAt(buf, start, end));
      const pc = f.address(1);
      if (isNaN(pc)) return this.bad('tick');
      if (!rest) {
        const built = this.buildRest(n, pc);
        if (!built) return this.bad('tick');
        if (this.restCount >= (this.o.maxRests ?? MAX_RESTS)) this.dropRests();
        built.key = f.key(withPc);
        built.sameHash = this.restCache.get(hash);
        this.restCache.set(hash, (rest = built));
        this.restCount++;
      }
      s = this.withLeaf(rest, pc);
      if (rest.first === undefined) {
        rest.firstPc = pcKey;
        rest.first = s;
      } else (rest.leaves ??= new Map()).set(pcKey, s);
      this.counted.push(s);
    } else if (s.count === 0) this.counted.push(s);
    s.count++;
    this.samples++;
    if (rest!.cutAt >= 0) this.cutTicks.set(rest!.cutAt, (this.cutTicks.get(rest!.cutAt) ?? 0) + 1);
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
  private buildRest(n: number, pc: number): Rest | null {
    if (n < 6) return null;
    const f = this.fields;
    const vm = f.number(5);
    let top: Resolved | null = null;
    let cbLeaf = -1;
    const ext = f.to(3) - f.from(3) === 1 && f.lead(3) === 49;
    const fixedLeaf = vm === VM_IDLE || vm === VM_GC;
    const path = this.path;
    let m = 0;
    if (vm === VM_IDLE) top = single(this.ids.idle);
    else {
      if (vm === VM_GC) top = single(this.ids.gc);
      else if (ext) {
        // In a C++ callback the pc may be deep in code it called (OpenSSL); the callback is its caller.
        const cb = this.resolver.resolve(f.address(4), false);
        if (cb) {
          top = cb;
          cbLeaf = cb.ids[cb.ids.length - 1];
        }
      } else {
        const tos = f.address(4);
        // A frameless call: the top of stack is a return address into JS code.
        if (tos > 0) {
          const e = this.code.find(tos);
          if (e && isJs(e.info)) top = this.resolver.resolve(tos, true);
        }
      }
      // The callers' addresses, leaf first as logged.
      let addrs = this.addrs;
      if (addrs.length < n) addrs = this.addrs = new Float64Array(n * 2);
      let prev = pc;
      for (let i = 6; i < n; i++) {
        const ch = f.lead(i);
        let addr: number;
        if (ch === 43 /* + */ || ch === 45 /* - */) addr = prev + f.int16(i);
        else if (ch === 48 /* 0 */) addr = f.address(i);
        else continue; // `overflow` and other markers
        prev = addr;
        addrs[m++] = addr;
      }
    }
    // Not a call to `reset` in a branch: it is taken a few dozen times per log, mostly after V8 optimized this function,
    // and reaching it then threw the optimized code away (a 70 ms recompile on tsc's log). Invalid, the rest is unread.
    path.valid = path.valid && path.resolverVersion === this.resolver.version && path.nativeVersion === this.o.native.version;
    // V8 logs at most 255 frames of a stack: a stack of as many lost its outermost callers.
    const tooDeep = vm !== VM_IDLE && n - 6 >= V8_MAX_FRAMES;
    const k = vm === VM_IDLE || this.o.reuseCallers === false || tooDeep !== path.cut ? 0 : path.common(this.addrs, m);
    this.callerFrames += m;
    this.reusedCallerFrames += k;
    if (vm !== VM_IDLE) path.added.length = 0;
    path.ensure(m);
    for (let j = k; j < m; j++) path.addrs[j] = this.addrs[m - 1 - j];
    // New callers are resolved leaf first, as they are logged (frames are numbered in the order first met).
    for (let i = 0; i < m - k; i++) {
      const addr = this.addrs[i];
      path.res[m - 1 - i] = addr > 0 ? this.resolver.resolve(addr, true) : null;
    }
    // The path's own arrays are worked on in place (cut back to the shared callers) and the Rest gets copies of them at
    // the end: a copy of each cut to its length, then grown by the new callers, was two allocations and a copy more.
    // An idle tick leaves the path as it is, for the next tick's callers.
    const inPlace = vm !== VM_IDLE;
    const keys = inPlace ? cut(path.keys, path.linesLen[k]) : path.keys.slice(0, path.linesLen[k]);
    const calls: Calls = {
      sites: inPlace ? cut(path.sites, path.sitesLen[k]) : path.sites.slice(0, path.sitesLen[k]),
      pairs: inPlace ? cut(path.pairs, path.pairsLen[k]) : path.pairs.slice(0, path.pairsLen[k]),
      blind: path.blind[k] === 1,
      tiers: inPlace ? cut(path.tiers, path.tiersLen[k]) : path.tiers.slice(0, path.tiersLen[k]),
      stamp: ++this.stamp,
      ownPairs: true,
      ownTiers: true,
      base: undefined,
    };
    for (let i = 0; i < calls.sites.length; i++) calls.sites[i].stamp = calls.stamp;
    // Each line once, in the order first met: a stamp per line, not a scan of the ~60 lines of a deep stack.
    const stamp = this.lines.stamp();
    for (let i = 0; i < keys.length; i++) this.lines.mark(keys[i], stamp);
    const tree = this.o.builder.tree;
    const root = this.o.builder.rootOf(this.o.thread);
    let node = k > 0 ? path.node[k] : tooDeep ? tree.child(root, (this.tooDeepId ??= this.o.builder.frame(STACK_TOO_DEEP))) : root;
    let tail = k > 0 ? path.tail[k] : null;
    let dropped = k > 0 ? path.dropped[k] : 0;
    // The callers, then the top of stack (j === m): one loop, not a closure made per stack.
    for (let j = k; j <= m; j++) {
      path.linesLen[j] = keys.length;
      path.sitesLen[j] = calls.sites.length;
      path.pairsLen[j] = calls.pairs.length;
      path.tiersLen[j] = calls.tiers.length;
      path.blind[j] = calls.blind ? 1 : 0;
      path.node[j] = node;
      path.tail[j] = tail;
      path.dropped[j] = dropped;
      let r: Resolved | null;
      if (j < m) {
        r = path.res[j];
        if (!r) {
          if (path.addrs[j] > 0) dropped++;
          continue;
        }
      } else {
        if (inPlace) {
          path.length = m;
          path.cut = tooDeep;
          path.valid = true;
          path.resolverVersion = this.resolver.version;
          path.nativeVersion = this.o.native.version;
        }
        r = top;
        if (!r) break;
      }
      for (let i = 0; i < r.ids.length; i++) node = tree.child(node, r.ids[i]);
      if (r.files.length) {
        const rk = (r.lineKeys ??= this.lines.keys(r.files, r.lines));
        for (let q = 0; q < rk.length; q++) {
          if (this.lines.mark(rk[q], stamp)) keys.push(rk[q]);
        }
      }
      tail = this.chain(tail, r, calls);
    }
    this.droppedFrames += dropped;
    if (dropped > 0) this.cacheHasUnresolved = true;
    // From here on the arrays are shared by the Rest's leaves.
    calls.ownPairs = calls.ownTiers = false;
    if (inPlace) {
      calls.sites = calls.sites.slice();
      calls.pairs = calls.pairs.slice();
      calls.tiers = calls.tiers.slice();
    }
    return {
      key: NO_KEY,
      sameHash: undefined,
      node,
      keys: inPlace ? keys.slice() : keys,
      ext,
      cbLeaf,
      fixedLeaf,
      cutAt: tooDeep ? this.outermost(m) : -1,
      firstPc: NaN,
      first: undefined,
      leaves: undefined,
      calls,
      tail,
      pending: undefined,
      pendingBlind: undefined,
    };
  }

  /** The outermost frame of the callers just resolved (path.res, root first), or the state's frame for none. */
  private outermost(m: number): number {
    for (let j = 0; j < m; j++) {
      const r = this.path.res[j];
      if (r && r.ids.length) return r.ids[0];
    }
    return this.ids.unaccounted;
  }

  /** Puts the pc's frame on top of the callers. */
  private withLeaf(rest: Rest, pc: number): CachedStack {
    const out: CachedStack = {
      node: rest.node,
      keys: rest.keys,
      selfAt: -1,
      count: 0,
      unaccounted: false,
      restSites: rest.calls.sites,
      sites: undefined,
      pending: undefined,
    };
    const leaf = this.leafOf(rest, pc, out);
    if (leaf) {
      const tree = this.o.builder.tree;
      for (let i = 0; i < leaf.ids.length; i++) out.node = tree.child(out.node, leaf.ids[i]);
      if (leaf.files.length) {
        const lk = (leaf.lineKeys ??= this.lines.keys(leaf.files, leaf.lines));
        out.keys = rest.keys.slice();
        for (let k = 0; k < lk.length; k++) {
          let at = out.keys.indexOf(lk[k]);
          if (at < 0) {
            at = out.keys.length;
            out.keys.push(lk[k]);
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
      return resolved([this.ids.unaccounted], [], [], false);
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
    c.ownPairs = c.ownTiers = false;
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
      if (!c.tiers.includes(tail.lineless)) addTier(c, tail.lineless);
    }
    if (!c.pairs.length && !c.blind) return;
    // Most leaves add no call and no line to their callers': those share one record.
    const plain = out.keys === rest.keys && c.pairs === rc.pairs && c.tiers === rc.tiers;
    if (plain && c.blind === rc.blind && rest.pending) out.pending = rest.pending;
    else if (plain && c.blind && rest.pendingBlind) out.pending = rest.pendingBlind;
    else {
      out.pending = this.calls.pendingFor(c.pairs, c.blind, c.tiers, out.keys, this.lines);
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
    // The answer depends only on the frames and the callee, and CallSites never forgets one: asked once per
    // return address instead of once per stack (a stack of a real program makes ~20 new calls).
    let a: Site | CallPair | null;
    if (k + 1 < from.ids.length) {
      const inner = (from.inner ??= []);
      let known: Site | CallPair | null | undefined = inner[k];
      if (known === undefined) inner[k] = known = this.answer(from, k, callee);
      a = known;
    } else if (from.lastCallee === callee) a = from.lastAnswer;
    else {
      a = from.lastAnswer = this.answer(from, k, callee);
      from.lastCallee = callee;
    }
    if (from.lineless) {
      const p = a as CallPair | null;
      if (p) {
        if (!c.pairs.includes(p)) {
          // Copy on write: a Rest's arrays are shared by its leaves.
          if (!c.ownPairs) {
            c.pairs = c.pairs.slice();
            c.ownPairs = true;
          }
          c.pairs.push(p);
        }
      } else c.blind = true;
      if (!c.tiers.includes(from.lineless)) addTier(c, from.lineless);
      return;
    }
    const s = a as Site | null;
    if (s && s.stamp !== c.stamp && !c.base?.includes(s)) {
      s.stamp = c.stamp;
      c.sites.push(s);
    }
  }

  /** The pair a frame without a line calls through, or the site a frame with one calls from (null: none). */
  private answer(from: Resolved, k: number, callee: number): Site | CallPair | null {
    const caller = from.ids[k];
    if (from.lineless) return this.calls.pair(caller, callee);
    const at = from.at ? from.at[k] : k < from.lines.length ? k : -1;
    if (at < 0) return null;
    return this.calls.site(caller, callee, from.files[at], from.lines[at]);
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
    if (this.wasmSharedName !== undefined)
      out.push(
        l10n.t(
          '{0}: WebAssembly functions of different modules share names ({1}): a tick log does not say which module code is in, so they are counted as one function; cpu-prof mode keeps modules apart',
          file,
          this.wasmSharedName,
        ),
      );
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
    if (this.cutTicks.size) {
      let cut = 0;
      for (const t of this.cutTicks.values()) cut += t;
      const [top, topTicks] = heaviest(this.cutTicks);
      if (cut / this.samples >= TOO_DEEP_NOTE_SHARE) {
        const note = deepStacksNote('v8', V8_MAX_FRAMES, cut, this.samples, this.o.builder.frames.get(top).name, topTicks);
        if (note) out.push(`${file}: ${note}`);
      }
    }
    const outside = this.unaccountedTicks - this.noPcTicks;
    if (outside > 0) {
      out.push(l10n.t('{0}: {1} of {2} ticks had a program counter outside any known code (unaccounted)', file, outside, this.samples));
    }
    return out;
  }
}
