import type { ProfileBuilder, Tier } from '../../model';
import type { CallPair, Site } from './callSites';
import type { CodeEntry, CodeInfo, CodeMap } from './codeMap';
import { AddressTable } from './addressTable';
import { fileUrlToPathAnyOs } from '../../paths';
import { codeFrame, isJs, nativeFrame, tierOf } from './frames';
import type { NativeHit, NativeResolver } from './native';
import { parseSourcePositions, rowAt, Script, stepsAt } from './positions';

/** V8 puts the remapped builtins this far into its code range, rounded to this allocation size. */
const CODE_RANGE_SPAN = 512 * 1024 * 1024;
const REMAP_ALIGN = 256 * 1024;

/** The frames one address stands for (several with inlining), outermost first, and their lines. Never changed once made. */
export interface Resolved {
  ids: number[];
  files: string[];
  lines: number[];
  js: boolean;
  /** JS code V8 logged without source positions (Sparkplug logs none): its tier. */
  lineless?: Tier | 'unknown';
  /** Per id: index in files/lines of the line it is at, or -1; absent when id k is at line k. */
  at?: number[];
  /** Per line: its number in the isolate's LineStamps, once a stack used it. */
  lineKeys?: number[];
  /**
   * The call-site answers (isolate.ts `call`) of its frames, once asked: per id but the last, the call into the next
   * id (fixed); for the last, the one callee last asked about. A return address nearly always calls the same callee.
   */
  inner?: (Site | CallPair | null)[];
  lastCallee: number;
  lastAnswer: Site | CallPair | null;
}

const EMPTY: string[] = [];
const NO_LINES: number[] = [];

/**
 * A `Resolved` with every field present from the start: one object shape for all of them, so the reader's hot code
 * sees one shape where it reads them (fields added later made several, and its compiled code was thrown away again).
 */
export function resolved(ids: number[], files: string[], lines: number[], js: boolean, lineless?: Tier | 'unknown'): Resolved {
  return { ids, files, lines, js, lineless, at: undefined, lineKeys: undefined, inner: undefined, lastCallee: -1, lastAnswer: null };
}
/** An answer kept for a return address, with what it was read from. */
interface KeptReturn {
  entry: CodeEntry;
  gen: number;
  answers: NonNullable<CodeInfo['answers']>;
  r: Resolved;
}

/** Return addresses kept at most (tsc's log has ~10 000 distinct). */
const MAX_RETURNS = 1 << 17;

/** The key of the one answer for code without positions. */
const LINELESS = -1;

/**
 * Frames for the addresses of one isolate's ticks. A tick of a real program (tsc) holds ~60 return addresses, nearly
 * all seen before: the answer for a code object and offset is kept until something it was read from changes (the
 * code's positions, an inlined function's positions, a script it looked up or failed to find).
 */
export class AddressResolver {
  private readonly scripts = new Map<number, Script>();
  private readonly scriptsByName = new Map<string, number>();
  /** Whether the log named a script so (`script-source`): where a code record's name ends (see parseJsName). */
  readonly isScript = (named: string): boolean => this.scriptsByName.has(fileUrlToPathAnyOs(named));
  /** Script ids and names a kept answer looked up and did not find: their arrival makes the answers stale. */
  private readonly missedIds = new Set<number>();
  private readonly missedNames = new Set<string>();
  /** Bumped when kept answers may have gone stale everywhere (a script they missed arrived, or one was replaced). */
  private epoch = 0;
  /** Code objects whose kept answers read a given code object's positions as an inlined function. */
  private readonly dependents = new WeakMap<CodeInfo, Set<CodeInfo>>();
  private readonly nativeAnswers = new WeakMap<NativeHit, Resolved>();
  codeRange = NaN;
  private builtinLo = Infinity;
  private builtinHi = -Infinity;
  private remap: { start: number; end: number; delta: number } | null = null;
  private remapFor = NaN;
  remappedAddresses = 0;
  inferredRemap = false;
  /** Bumped whenever an answer given before may no longer be the one given now (other than by the code map's changes). */
  version = 0;

  constructor(
    private readonly code: CodeMap,
    private readonly native: NativeResolver,
    private readonly b: ProfileBuilder,
    /** False: every return address read from its code again (the answers are the same; a test compares). */
    private readonly keepReturns = true,
  ) {}

  addScript(id: number, name: string, text: string): void {
    if (this.scripts.has(id) || this.missedIds.has(id) || (name && (this.scriptsByName.has(name) || this.missedNames.has(name)))) {
      this.epoch++;
      this.version++;
      this.missedIds.clear();
      this.missedNames.clear();
    }
    this.scripts.set(id, new Script(name, text));
    if (name) this.scriptsByName.set(name, id);
  }

  /** A builtin of the main binary; true when the builtins' span grew after a remapped copy was placed by it. */
  noteBuiltin(start: number, size: number): boolean {
    this.builtinLo = Math.min(this.builtinLo, start);
    if (start + size <= this.builtinHi) return false;
    this.builtinHi = start + size;
    return this.remap !== null;
  }

  /** `code-source-info` arrived for a code object: its answers, and those of code it is inlined in, are stale. */
  positionsChanged(info: CodeInfo): void {
    if (info.answers) this.version++;
    info.answers = undefined;
    this.dropDependents(info);
  }

  private dropDependents(info: CodeInfo): void {
    const d = this.dependents.get(info);
    if (!d) return;
    this.version++;
    for (const outer of d) outer.answers = undefined;
    this.dependents.delete(info);
  }

  /**
   * Return addresses answered from code objects: a stack's callers are mostly addresses seen before. Each answer is
   * kept with what it was read from, checked on use: the code object still in the map where it was, its answers the
   * same (`code-source-info` or an inlined function's positions drop them) and of the current epoch. Dropping them
   * all whenever any code changed (tsc: 150 times) had them read again 28 000 times.
   */
  private readonly returns = new AddressTable<KeptReturn>();
  /** Kept answers given, and kept answers found stale and read again. */
  keptReturnsUsed = 0;
  keptReturnsStale = 0;

  /** Frames for one address: JS/V8 code first, then C++ symbols, then remapped builtins. */
  resolve(addr: number, isReturn: boolean): Resolved | null {
    if (!(addr > 0)) return null;
    if (isReturn && this.keepReturns) {
      const k = this.returns.get(addr);
      if (k !== undefined) {
        if (k.entry.gen === k.gen && k.entry.info.answers === k.answers && (k.answers.epoch === this.epoch || k.answers.epoch < 0)) {
          this.keptReturnsUsed++;
          return k.r;
        }
        this.keptReturnsStale++;
      }
    }
    const e = this.code.find(addr);
    if (e) {
      const r = this.fromCode(e, addr, isReturn);
      if (isReturn && this.keepReturns) this.keep(addr, e, r);
      return r;
    }
    const n = this.native.resolve(addr);
    if (n) return this.fromNative(n);
    let orig = this.native.unmap(addr);
    if (isNaN(orig)) orig = this.unmapInferred(addr);
    if (isNaN(orig)) return null;
    this.remappedAddresses++;
    const e2 = this.code.find(orig);
    if (e2) return this.fromCode(e2, orig, isReturn);
    const n2 = this.native.resolve(orig);
    return n2 ? this.fromNative(n2) : null;
  }

  private keep(addr: number, entry: CodeEntry, r: Resolved): void {
    const answers = entry.info.answers;
    if (!answers) return;
    // Addresses of code long gone stay until their address comes again: past a bound, all go.
    if (this.returns.size >= MAX_RETURNS) this.returns.clear();
    const k = this.returns.get(addr);
    if (k) {
      k.entry = entry;
      k.gen = entry.gen;
      k.answers = answers;
      k.r = r;
    } else this.returns.set(addr, { entry, gen: entry.gen, answers, r });
  }

  private fromNative(n: NativeHit): Resolved {
    let r = this.nativeAnswers.get(n);
    if (!r) this.nativeAnswers.set(n, (r = resolved([this.b.frame(nativeFrame(n.lib, n.name))], EMPTY, NO_LINES, false)));
    return r;
  }

  /**
   * Without a saved `/proc/<pid>/maps`, V8's copy of its embedded builtins (`--short-builtin-calls`)
   * is found where V8 puts it: at the end of the first 512 MiB of the code range it logged.
   */
  private unmapInferred(addr: number): number {
    // Builtins are announced in a burst at start-up while ticks already arrive: redo it as it grows.
    if (this.remapFor !== this.builtinHi && !isNaN(this.codeRange) && this.builtinHi > this.builtinLo) {
      this.remapFor = this.builtinHi;
      const size = this.builtinHi - this.builtinLo;
      const start = this.codeRange + CODE_RANGE_SPAN - Math.ceil(size / REMAP_ALIGN) * REMAP_ALIGN;
      this.remap = { start, end: start + size, delta: this.builtinLo - start };
    }
    const r = this.remap;
    if (r && addr >= r.start && addr < r.end) {
      this.inferredRemap = true;
      return addr + r.delta;
    }
    return NaN;
  }

  private fromCode(e: CodeEntry, addr: number, isReturn: boolean): Resolved {
    const info = e.info;
    if (info.frameId < 0) info.frameId = this.b.frame(codeFrame(info, undefined, this.isScript));
    if (info.rawPositions) {
      const r = info.rawPositions;
      info.positions = parseSourcePositions(r.scriptId, r.positions, r.inlinings, r.fns) ?? undefined;
      info.rawPositions = undefined;
      // Code that inlines this function looked its script up by name until now.
      this.dropDependents(info);
    }
    const p = info.positions;
    if (!isJs(info)) {
      // Not JS: one answer whatever the offset, and nothing it was read from changes.
      if (!info.answers)
        info.answers = { epoch: -1, byOffset: new Map([[LINELESS, resolved([info.frameId], EMPTY, NO_LINES, false)]]), byRow: undefined };
      return info.answers.byOffset.get(LINELESS)!;
    }
    // Baseline (Sparkplug) code comes with an empty position table. Its pc could only be mapped to a
    // line through the bytecode offset table, which the log does not carry: no line is read from the
    // pc. As a caller, its line is inferred from its callee at the end (callSites.ts).
    const tier: Tier | undefined = tierOf(info.tierMark);
    // Machine code frames hold return addresses, which point past the call; bytecode frames do not.
    const off = p ? Math.max(addr - e.start - (isReturn && tier !== 'interpreted' ? 1 : 0), 0) : LINELESS;
    let cache = info.answers;
    if (!cache || cache.epoch !== this.epoch) info.answers = cache = { epoch: this.epoch, byOffset: new Map(), byRow: undefined };
    let out = cache.byOffset.get(off);
    if (!out) {
      out = p ? this.positioned(info, p, tier, off, cache) : resolved([info.frameId], EMPTY, NO_LINES, true, tier ?? 'unknown');
      cache.byOffset.set(off, out);
    }
    return out;
  }

  private positioned(
    info: CodeInfo,
    p: NonNullable<CodeInfo['positions']>,
    tier: Tier | undefined,
    off: number,
    cache: NonNullable<CodeInfo['answers']>,
  ): Resolved {
    const b = this.b;
    const frameId = info.frameId;
    const row = rowAt(p, off);
    if (row < 0) return resolved([frameId], EMPTY, NO_LINES, true);
    // Offsets between two rows of the table are at the same positions: a leaf's pc is seldom twice the same, its row often is.
    const rows = (cache.byRow ??= new Map());
    const known = rows.get(row);
    if (known) return known;
    const steps = stepsAt(p, info, row);
    const out = resolved([], [], [], true);
    for (const st of steps) {
      if (!st.info) continue;
      const inlined = st.info !== info;
      if (inlined) this.dependOn(info, st.info);
      const id = inlined ? this.inlinedFrame(st.info, tier) : frameId;
      const scriptId = inlined ? this.scriptOf(st.info, id) : p.scriptId;
      const script = scriptId === undefined ? undefined : this.scripts.get(scriptId);
      if (scriptId !== undefined && !script) this.missedIds.add(scriptId);
      if (script && st.scriptOffset >= 0) {
        out.at?.push(out.files.length);
        out.files.push(b.frames.get(id).file || script.name);
        out.lines.push(script.position(st.scriptOffset).line);
      } else {
        // Only a group with a step without a line needs the mapping spelled out.
        out.at ??= out.ids.map((_, k) => k);
        out.at.push(-1);
      }
      out.ids.push(id);
    }
    if (out.ids.length === 0) out.ids.push(frameId);
    rows.set(row, out);
    return out;
  }

  /** The frame of a function inlined into code of `tier`: asked for each offset of each code object it is inlined in. */
  private inlinedFrame(info: CodeInfo, tier: Tier | undefined): number {
    if (info.inlinedId !== undefined && info.inlinedId >= 0 && info.inlinedTier === tier) return info.inlinedId;
    const id = this.b.frame(codeFrame(info, tier, this.isScript));
    info.inlinedId = id;
    info.inlinedTier = tier;
    return id;
  }

  private dependOn(outer: CodeInfo, inlined: CodeInfo): void {
    let d = this.dependents.get(inlined);
    if (!d) this.dependents.set(inlined, (d = new Set()));
    d.add(outer);
  }

  /** `frameId`: the function's frame (its file is the one its name gives, whatever the tier). */
  private scriptOf(info: CodeInfo, frameId: number): number | undefined {
    if (info.positions) return info.positions.scriptId;
    const file = this.b.frames.get(frameId).file;
    if (!file) return undefined;
    const id = this.scriptsByName.get(file);
    if (id === undefined) this.missedNames.add(file);
    return id;
  }
}
