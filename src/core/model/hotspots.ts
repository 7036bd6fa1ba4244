import type { CallTree } from './callTree';
import type { Frame } from './frame';
import type { Profile } from './profile';
import { functionStats } from './views';
import { isSpaceChar, isWordChar } from '../chars';

/**
 * What the editor shows over source files: one entry per function (frames that differ only by V8
 * tier or inlining share a function), and per-line heat. Pure, so it is tested without VS Code.
 */
export interface FunctionHotspot {
  name: string;
  /** The file name as the profile recorded it (original, source-mapped location). */
  file: string;
  /** 1-based start line and column of the function. */
  line: number;
  column: number;
  /** Frame with the most weight among those merged: what the flame graph reveals. */
  frame: number;
  frames: number[];
  self: number;
  total: number;
  /** Fractions of all samples. */
  selfShare: number;
  totalShare: number;
}

export interface LineHeat {
  line: number;
  self: number;
  total: number;
  /** `total` (or `self` when the format records no inclusive hits) as a fraction of all samples. */
  share: number;
  /** 0..1, relative to the hottest line of the whole profile, on a square-root scale so mild lines stay visible. */
  intensity: number;
}

export interface FileHotspots {
  file: string;
  /** Sorted by line. */
  functions: FunctionHotspot[];
  /** Sorted by line; only lines with hits. */
  lines: LineHeat[];
}

export interface HotspotIndex {
  weight: number;
  files: Map<string, FileHotspots>;
  /** Function id of every frame (frames outside source files get ids of their own). */
  functionOf: Int32Array;
  /** The call tree with frames replaced by function ids; callers and callees are read from it. */
  functionTree: CallTree;
  /** Representative frame of each function id. */
  representative: number[];
  byFrame: Map<number, FunctionHotspot>;
}

const NO_SOURCE = new Set<Frame['category']>(['native', 'shared-lib', 'kernel', 'idle', 'program', 'gc', 'unaccounted', 'eval', 'wasm']);

function hasSource(f: Frame): boolean {
  return !!f.file && f.line > 0 && !NO_SOURCE.has(f.category);
}

export function buildHotspots(profile: Profile): HotspotIndex {
  const { frames, tree } = profile;
  const weight = tree.weight;
  const functionOf = new Int32Array(frames.length);
  const ids = new Map<string, number>();
  const members: number[][] = [];
  for (let f = 0; f < frames.length; f++) {
    const fr = frames[f];
    const key = hasSource(fr) ? `${fr.file}\0${fr.line}\0${fr.column}\0${fr.name}` : `#${f}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = members.length;
      ids.set(key, id);
      members.push([]);
    }
    functionOf[f] = id;
    members[id].push(f);
  }
  const functionTree = tree.remap((f) => functionOf[f]);
  const perFrame = new Map(functionStats(tree, frames.length).map((s) => [s.frame, s]));
  const perFunction = functionStats(functionTree, members.length);
  const representative = members.map((m) =>
    m.reduce((best, f) => ((perFrame.get(f)?.total ?? 0) > (perFrame.get(best)?.total ?? 0) ? f : best), m[0]),
  );

  const files = new Map<string, FileHotspots>();
  const fileEntry = (file: string): FileHotspots => {
    let e = files.get(file);
    if (!e) files.set(file, (e = { file, functions: [], lines: [] }));
    return e;
  };
  const byFrame = new Map<number, FunctionHotspot>();
  for (const s of perFunction) {
    const rep = representative[s.frame];
    const fr = frames[rep];
    if (!hasSource(fr)) continue;
    const h: FunctionHotspot = {
      name: fr.name,
      file: fr.file,
      line: fr.line,
      column: fr.column,
      frame: rep,
      frames: members[s.frame],
      self: s.self,
      total: s.total,
      selfShare: weight > 0 ? s.self / weight : 0,
      totalShare: weight > 0 ? s.total / weight : 0,
    };
    fileEntry(fr.file).functions.push(h);
    for (const f of h.frames) byFrame.set(f, h);
  }

  let hottest = 0;
  for (const lines of profile.lineHits.values()) for (const h of lines.values()) hottest = Math.max(hottest, h.total || h.self);
  for (const [file, lines] of profile.lineHits) {
    const e = fileEntry(file);
    for (const [line, h] of lines) {
      const v = h.total || h.self;
      if (v <= 0) continue;
      e.lines.push({
        line,
        self: h.self,
        total: h.total,
        share: weight > 0 ? v / weight : 0,
        intensity: hottest > 0 ? Math.sqrt(v / hottest) : 0,
      });
    }
  }
  for (const e of files.values()) {
    e.functions.sort((a, b) => a.line - b.line || a.column - b.column);
    e.lines.sort((a, b) => a.line - b.line);
  }
  return { weight, files, functionOf, functionTree, representative, byFrame };
}

/** Functions at or above `threshold` (a fraction of all samples) of total weight. */
export function hotFunctions(file: FileHotspots, threshold: number): FunctionHotspot[] {
  return file.functions.filter((f) => f.total > 0 && f.totalShare >= threshold);
}

/** Heat level 1..levels for an intensity, so a fixed set of decoration styles can show it. */
export function heatLevel(intensity: number, levels: number): number {
  return Math.min(levels, Math.max(1, Math.ceil(intensity * levels)));
}

export interface Neighbour {
  /** Representative frame of the calling or called function; -1 for the profile's root. */
  frame: number;
  weight: number;
  /** Fraction of the function's total weight. */
  share: number;
}

/**
 * Who calls `fn` and whom it calls, by weight through each edge. Recursion is counted once per
 * sample: only the outermost call of `fn` counts toward callers, and an edge already on the stack
 * is not counted again below itself.
 */
export function callersAndCallees(index: HotspotIndex, fn: FunctionHotspot, limit = 5): { callers: Neighbour[]; callees: Neighbour[] } {
  const t = index.functionTree;
  const g = index.functionOf[fn.frame];
  const tot = t.total;
  const callers = new Map<number, number>();
  const callees = new Map<number, number>();
  const activeEdge = new Map<number, number>();
  let gOnPath = 0;
  // Iterative DFS: enter/leave events keep the path counters right without deep JS recursion.
  const stack: Array<[number, boolean]> = [[0, false]];
  while (stack.length) {
    const [node, leaving] = stack.pop()!;
    const f = t.frame[node];
    const p = node > 0 ? t.parent[node] : -1;
    const fromG = p >= 0 && t.frame[p] === g;
    if (leaving) {
      if (f === g) gOnPath--;
      if (fromG) activeEdge.set(f, activeEdge.get(f)! - 1);
      continue;
    }
    if (f === g && gOnPath === 0) {
      const caller = p > 0 ? t.frame[p] : -1;
      callers.set(caller, (callers.get(caller) ?? 0) + tot[node]);
    }
    if (fromG) {
      const n = activeEdge.get(f) ?? 0;
      if (n === 0) callees.set(f, (callees.get(f) ?? 0) + tot[node]);
      activeEdge.set(f, n + 1);
    }
    if (f === g) gOnPath++;
    stack.push([node, true]);
    for (const c of t.children(node)) stack.push([c, false]);
  }
  const top = (m: Map<number, number>): Neighbour[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([id, w]) => ({ frame: id < 0 ? -1 : index.representative[id], weight: w, share: fn.total > 0 ? w / fn.total : 0 }));
  return { callers: top(callers), callees: top(callees) };
}

/**
 * Whether the line the profile names still starts the function: the last identifier of a named
 * function must appear on it. Unnamed functions and class constructors (named after the class, but
 * starting at `constructor(`) cannot be checked and pass.
 */
export function functionStillAt(name: string, lineText: string): boolean {
  const id = lastIdentifier(name, withoutPlaceholder(name));
  if (!id) return true;
  if (/\bconstructor\b/.test(lineText)) return true;
  for (let at = lineText.indexOf(id); at >= 0; at = lineText.indexOf(id, at + 1)) {
    if (!isWordChar(lineText.charCodeAt(at - 1)) && !isWordChar(lineText.charCodeAt(at + id.length))) return true;
  }
  return false;
}

// Names come from profiles: scanned by hand, as patterns like /([A-Za-z_$][\w$]*)\s*$/ retry every
// character of a long name (quadratic: seconds of editor time for one 64K-character name).
const PLACEHOLDERS = ['anonymous', 'native', 'program', 'root'];

/** Where the name ends once a trailing `(anonymous)`, `[native]`, ` program`… is cut off. */
function withoutPlaceholder(name: string): number {
  let e = name.length;
  while (e > 0 && isSpaceChar(name.charCodeAt(e - 1))) e--;
  if (name.charCodeAt(e - 1) === 41 /* ) */) e--;
  if (name.charCodeAt(e - 1) === 93 /* ] */) e--;
  const word = PLACEHOLDERS.find((w) => e >= w.length && name.slice(e - w.length, e).toLowerCase() === w);
  if (!word) return name.length;
  e -= word.length;
  if (name.charCodeAt(e - 1) === 91 /* [ */) e--;
  while (e > 0 && (isSpaceChar(name.charCodeAt(e - 1)) || name.charCodeAt(e - 1) === 40) /* ( */) e--;
  return e;
}

/** The identifier ending `name.slice(0, end)` (trailing spaces aside), or ''. */
function lastIdentifier(name: string, end: number): string {
  while (end > 0 && isSpaceChar(name.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && isWordChar(name.charCodeAt(start - 1))) start--;
  // An identifier does not start with a digit.
  while (start < end && name.charCodeAt(start) >= 48 && name.charCodeAt(start) <= 57) start++;
  return name.slice(start, end);
}
