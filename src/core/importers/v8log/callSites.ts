import type { FrameTable, Tier } from '../../model';
import type { LineStamps } from './lineStamps';
import { grownLater } from './grownLater';
import { doubled } from '../../doubled';

/** A line a caller was seen calling a callee from; `weight` is the ticks that saw it. */
export interface Site {
  line: number;
  weight: number;
  /** Last stack this site was added to, so a recursive stack counts it once. */
  stamp: number;
}

/** Calls from one function to another, as seen in code whose source positions V8 logged. */
export interface CallPair {
  id: number;
  /** The caller's file: inferred lines go there. */
  file: string;
  fileId: number;
  sites: Site[];
  /** The sites by line, once there are more than a few (a big function calls one callee from many lines). */
  byLine: Map<number, Site> | undefined;
}

/**
 * Ticks whose stacks pass through JavaScript frames without a line (Sparkplug code): the call each
 * of those frames was making, and the lines the stack already counts (a line counts once a tick).
 */
export interface Pending {
  pairs: CallPair[];
  /** A frame without a line and without a known callee (the leaf, or above GC): never inferred. */
  blind: boolean;
  tiers: (Tier | 'unknown')[];
  /** The lines the stack counts in the pairs' files: file (as CallPair.fileId) and line. */
  knownFileIds: number[];
  knownLines: number[];
  count: number;
}

/** Sites of a pair looked for one by one; past this many, by a map. */
const SITES_SCANNED = 8;

/** Categories of frames that stand for a state, not for a function being called. */
const NOT_CALLS = new Set(['idle', 'gc', 'unaccounted', 'program']);

export interface InferenceResult {
  /** Ticks that went through a frame without a line, by tier of those frames. */
  byTier: Map<Tier | 'unknown', number>;
  /** Of those, ticks where every such frame got its line from the call it makes… */
  inferred: number;
  /** …where some did… */
  partly: number;
  /** …and where none did. */
  none: number;
  total: number;
}

/**
 * Sparkplug (baseline) code is logged with an empty source position table: V8 maps its pcs through
 * a bytecode offset table the log does not carry. What the log does carry is the callee above such a
 * frame, and the lines the same function calls that callee from when it runs as bytecode, Maglev or
 * TurboFan code. Those lines, weighted by how often each was seen, stand in for the missing one.
 */
export class CallSites {
  /** Frame id → function id + 1, the same across tiers (0: not looked up, -1: a state, not a function). */
  private fnOfFrame = new Int32Array(1024);
  private readonly fnIds = new Map<string, number>();
  /** By caller function, then callee function. */
  private readonly byCaller: (Map<number, CallPair> | undefined)[] = [];
  private pairCount = 0;
  /** The same, by caller frame then callee frame: tiers of one function are different frames. */
  private readonly byFrame: (Map<number, CallPair | null> | undefined)[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly fileIds = new Map<string, number>();
  private readonly files: string[] = [];
  /** By file index of the lines' numbering (LineStamps): the stamp of the last key that marked it, and its id here. */
  private fileMarks = new Int32Array(64);
  private fileIdAt = new Int32Array(64);
  private fileStamp = 0;
  private readonly tierCodes = new Map<string, number>();

  constructor(private readonly frames: FrameTable) {
    grownLater(this, 'fnOfFrame', 'fileMarks', 'fileIdAt');
  }

  /** The function a frame stands for, whatever tier ran it; -1 for states (GC, idle). */
  fn(frameId: number): number {
    if (frameId >= this.fnOfFrame.length) this.fnOfFrame = doubled(this.fnOfFrame, frameId + 1);
    const known = this.fnOfFrame[frameId];
    if (known !== 0) return known < 0 ? -1 : known - 1;
    const f = this.frames.get(frameId);
    let id = -1;
    if (!NOT_CALLS.has(f.category)) {
      const k = `${f.name}\0${f.file}\0${f.line}\0${f.column}\0${f.lib ?? ''}`;
      id = this.fnIds.get(k) ?? this.fnIds.size;
      if (id === this.fnIds.size) this.fnIds.set(k, id);
    }
    this.fnOfFrame[frameId] = id < 0 ? -1 : id + 1;
    return id;
  }

  /** Calls from one frame's function to another's; null when either is not a function or the caller has no file. */
  pair(caller: number, callee: number): CallPair | null {
    while (this.byFrame.length <= caller) this.byFrame.push(undefined);
    let m = this.byFrame[caller];
    if (!m) this.byFrame[caller] = m = new Map();
    let p = m.get(callee);
    if (p === undefined) m.set(callee, (p = this.pairOfFns(caller, callee)));
    return p;
  }

  private pairOfFns(caller: number, callee: number): CallPair | null {
    const a = this.fn(caller);
    const b = this.fn(callee);
    if (a < 0 || b < 0) return null;
    while (this.byCaller.length <= a) this.byCaller.push(undefined);
    let m = this.byCaller[a];
    if (!m) this.byCaller[a] = m = new Map();
    let p = m.get(b);
    if (!p) {
      const file = this.frames.get(caller).file;
      if (!file) return null;
      m.set(b, (p = { id: this.pairCount++, file, fileId: this.fileId(file), sites: [], byLine: undefined }));
    }
    return p;
  }

  /** The site a caller at a known line calls a callee from; its weight grows with the ticks. */
  site(caller: number, callee: number, file: string, line: number): Site | null {
    const p = this.pair(caller, callee);
    if (!p || p.file !== file) return null;
    const sites = p.sites;
    if (p.byLine) {
      const known = p.byLine.get(line);
      if (known) return known;
    } else for (let i = 0; i < sites.length; i++) if (sites[i].line === line) return sites[i];
    const s: Site = { line, weight: 0, stamp: -1 };
    sites.push(s);
    if (p.byLine) p.byLine.set(line, s);
    else if (sites.length > SITES_SCANNED) p.byLine = new Map(sites.map((x) => [x.line, x]));
    return s;
  }

  private fileId(file: string): number {
    let id = this.fileIds.get(file);
    if (id === undefined) {
      this.fileIds.set(file, (id = this.fileIds.size));
      this.files.push(file);
    }
    return id;
  }

  /** One record for all ticks with the same unknown calls and the same lines in their files. */
  pendingFor(pairs: CallPair[], blind: boolean, tiers: (Tier | 'unknown')[], keys: number[], lines: LineStamps): Pending {
    // The key, as 16-bit codes: blind, the tiers, the pairs, then the known lines' file and line (a line may pass 2^16:
    // two codes). Written straight into the code units the key string is made of: an array emptied with `length = 0`
    // lets go of its storage, and grew it again for every new leaf.
    const most = 3 + tiers.length + 2 * pairs.length + 4 * keys.length;
    if (most > codeUnits.length) {
      codeUnits = new Uint16Array(Math.max(most, codeUnits.length * 2));
      codeBytes = Buffer.from(codeUnits.buffer);
    }
    const key = codeUnits;
    let n = 0;
    key[n++] = blind ? 1 : 0;
    key[n++] = tiers.length;
    for (let i = 0; i < tiers.length; i++) key[n++] = this.tierCode(tiers[i]);
    key[n++] = pairs.length;
    // A deep stack of a real program has ~60 lines and ~20 unknown calls: the pairs' files by stamp, not by scan.
    const stamp = ++this.fileStamp;
    this.fileRoom(lines.files.length);
    // The pairs' files are marked by the line numbering's file index, each with its id here.
    for (let i = 0; i < pairs.length; i++) {
      const p = pairs[i];
      key[n++] = p.id & 0xffff;
      key[n++] = p.id >>> 16;
      const f = lines.indexOfFile(p.file);
      if (f >= 0) {
        this.fileMarks[f] = stamp;
        this.fileIdAt[f] = p.fileId;
      }
    }
    const at = n;
    for (let i = 0; i < keys.length; i++) {
      const f = lines.fileOf[keys[i]];
      if (this.fileMarks[f] !== stamp) continue;
      const id = this.fileIdAt[f];
      const line = lines.lineOf[keys[i]];
      key[n++] = id & 0xffff;
      key[n++] = id >>> 16;
      key[n++] = line & 0xffff;
      key[n++] = line >>> 16;
    }
    const k = codeBytes.toString('ucs2', 0, n * 2);
    let g = this.pending.get(k);
    if (!g) {
      const knownFileIds: number[] = [];
      const knownLines: number[] = [];
      for (let i = at; i < n; i += 4) {
        knownFileIds.push(key[i] | (key[i + 1] << 16));
        knownLines.push(key[i + 2] | (key[i + 3] << 16));
      }
      this.pending.set(k, (g = { pairs, blind, tiers, knownFileIds, knownLines, count: 0 }));
    }
    return g;
  }

  private tierCode(t: Tier | 'unknown'): number {
    let c = this.tierCodes.get(t);
    if (c === undefined) this.tierCodes.set(t, (c = this.tierCodes.size));
    return c;
  }

  /** Room for a mark per file of the lines' numbering. */
  private fileRoom(files: number): void {
    if (files <= this.fileMarks.length) return;
    const n = Math.max(files, this.fileMarks.length * 2);
    const marks = new Int32Array(n);
    marks.set(this.fileMarks);
    this.fileMarks = marks;
    const ids = new Int32Array(n);
    ids.set(this.fileIdAt);
    this.fileIdAt = ids;
  }

  /**
   * Adds the inferred line hits. A pair seen at several lines spreads its ticks over them by how
   * often each was seen; two frames of one tick landing on the same line count it once.
   */
  infer(hit: (file: string, line: number, total: number) => void): InferenceResult {
    const res: InferenceResult = { byTier: new Map(), inferred: 0, partly: 0, none: 0, total: 0 };
    // The pairs' weights are final here; thousands of groups share each pair.
    const spreads: (Spread | null | undefined)[] = new Array<Spread | null | undefined>(this.pairCount);
    // Per (file, line) of a spread, a number: a group's chances are kept in arrays by it, stamped per group, not in maps.
    const keys = new LineKeys();
    let miss = new Float64Array(1024);
    let marks = new Int32Array(1024);
    const fileMarks = new Int32Array(this.files.length + 1);
    const fileRank = new Int32Array(this.files.length + 1);
    const touched: number[] = [];
    let stamp = 0;
    for (const g of this.pending.values()) {
      if (!g.count) continue;
      res.total += g.count;
      for (let i = 0; i < g.tiers.length; i++) res.byTier.set(g.tiers[i], (res.byTier.get(g.tiers[i]) ?? 0) + g.count);
      // Per file and line: the chance that no frame of the tick is on it, multiplied over frames.
      stamp++;
      touched.length = 0;
      let files = 0;
      let found = 0;
      for (let pi = 0; pi < g.pairs.length; pi++) {
        const p = g.pairs[pi];
        let sp = spreads[p.id];
        if (sp === undefined) sp = spreads[p.id] = spreadOf(p, keys);
        if (!sp) continue;
        found++;
        if (fileMarks[p.fileId] !== stamp) {
          fileMarks[p.fileId] = stamp;
          fileRank[p.fileId] = files++;
        }
        if (keys.count > marks.length) {
          const n = Math.max(keys.count, marks.length * 2);
          const m2 = new Int32Array(n);
          m2.set(marks);
          marks = m2;
          const x2 = new Float64Array(n);
          x2.set(miss);
          miss = x2;
        }
        for (let i = 0; i < sp.keys.length; i++) {
          const k = sp.keys[i];
          if (marks[k] !== stamp) {
            marks[k] = stamp;
            miss[k] = sp.miss[i];
            touched.push(k);
          } else miss[k] *= sp.miss[i];
        }
      }
      if (found === 0) res.none += g.count;
      else if (found === g.pairs.length && !g.blind) res.inferred += g.count;
      else res.partly += g.count;
      if (touched.length === 0) continue;
      // By file in the order first met, each file's lines in the order first met (a stable sort keeps the latter).
      if (files > 1) touched.sort((x, y) => fileRank[keys.fileId[x]] - fileRank[keys.fileId[y]]);
      // A line the stack already counts is not inferred again: unmarked for this group. By file id, not by name: a
      // lookup of the name per known line (~60 in a deep stack, for each of thousands of groups) was a good part of this.
      for (let i = 0; i < g.knownFileIds.length; i++) {
        // Only the files of this group's spreads have lines marked.
        if (fileMarks[g.knownFileIds[i]] !== stamp) continue;
        const k = keys.find(g.knownFileIds[i], g.knownLines[i]);
        if (k !== undefined && marks[k] === stamp) marks[k] = -1;
      }
      for (let i = 0; i < touched.length; i++) {
        const k = touched[i];
        if (marks[k] === stamp) hit(this.files[keys.fileId[k]], keys.line[k], g.count * (1 - miss[k]));
      }
    }
    return res;
  }
}

/** A number for each (file id, line) an inferred hit may go to. */
class LineKeys {
  private readonly byFile = new Map<number, Map<number, number>>();
  fileId: number[] = [];
  line: number[] = [];
  count = 0;

  of(file: number, line: number): number {
    let m = this.byFile.get(file);
    if (!m) this.byFile.set(file, (m = new Map()));
    let k = m.get(line);
    if (k === undefined) {
      m.set(line, (k = this.count++));
      this.fileId.push(file);
      this.line.push(line);
    }
    return k;
  }

  find(file: number, line: number): number | undefined {
    return this.byFile.get(file)?.get(line);
  }
}

/** A pair's lines seen (as LineKeys), and for each the chance a tick of the pair is not at it; null when never seen. */
interface Spread {
  keys: number[];
  miss: number[];
}

function spreadOf(p: CallPair, keys: LineKeys): Spread | null {
  let sum = 0;
  for (let i = 0; i < p.sites.length; i++) sum += p.sites[i].weight;
  let out: Spread | null = null;
  if (sum > 0) {
    out = { keys: [], miss: [] };
    for (let i = 0; i < p.sites.length; i++) {
      const s = p.sites[i];
      if (s.weight <= 0) continue;
      out.keys.push(keys.of(p.fileId, s.line));
      out.miss.push(1 - s.weight / sum);
    }
  }
  return out;
}

/** The code units of `pendingFor`'s key (any 16-bit values: Node's UCS-2 decoding keeps lone surrogates), grown as needed. */
let codeUnits = new Uint16Array(1024);
/** The same memory as bytes, made once per growth rather than a Buffer per key. */
let codeBytes = Buffer.from(codeUnits.buffer);
