import { CallTree } from './callTree';
import type { Frame } from './frame';
import { NameIndex } from './nameIndex';
import type { Profile } from './profile';

export interface ViewOptions {
  /** Fold Node.js core frames (`node:*`, `internal/*`) into their caller. */
  hideNodeInternals?: boolean;
  /** Show each run of one npm package's frames as a single box named after the package. */
  collapseDependencies?: boolean;
  /**
   * `function` merges the frames of one function that differ only in V8 tier (one box per function);
   * `line` keeps every position the importer recorded apart.
   */
  mergeBy?: 'function' | 'line';
}

/** A profile's tree seen through view options; frame ids index `frames`, not the profile's. */
export interface ProfileView {
  frames: Frame[];
  tree: CallTree;
  /** Profile frame id → view frame id (-1: folded away). */
  frameMap: Int32Array;
}

/**
 * One function: same name, file, start line and column whatever the tier (the name is compared by the caller's
 * index). The column counts: a minified file's one line holds hundreds of functions, terser's mangled `$t` among
 * them eleven times, and a line of TypeScript's compiler two arrow functions (`_tsc.js` 31996, columns 45 and 144).
 */
export function sameFunction(g: Frame, f: Frame): boolean {
  return g.file === f.file && g.line === f.line && g.column === f.column && g.category === f.category && (g.lib ?? '') === (f.lib ?? '');
}

/** Rewrites the call tree for the toggles; the profile itself is left untouched (and shared when nothing changes). */
export function applyViewOptions(profile: Profile, opts: ViewOptions): ProfileView {
  const { frames, frameMap, packageFrames, identity } = viewFrames(profile, opts);
  if (identity) return { frames: profile.frames, tree: profile.tree, frameMap };
  // A package box calling into the same package stays one box.
  const tree = profile.tree.remap(
    (f) => frameMap[f],
    (f) => packageFrames.has(f),
  );
  return { frames, tree, frameMap };
}

/** The view's frames and where each of the profile's goes (-1: folded away), without the tree. */
export function viewFrames(
  profile: Profile,
  opts: ViewOptions,
): { frames: Frame[]; frameMap: Int32Array; packageFrames: Set<number>; identity: boolean } {
  const frames: Frame[] = [];
  const byPackage = new Map<string, number>();
  const frameMap = new Int32Array(profile.frames.length);
  const mergeFunctions = (opts.mergeBy ?? 'function') === 'function';
  const packageFrames = new Set<number>();
  let identity = true;
  // One index and its four callbacks for the whole walk, reading the frame at hand from `cur`: the editor's first answer
  // runs this over every frame, and four closures made per frame took a 100k-frame profile 70-130 ms.
  const byFunction = new NameIndex();
  let cur: Frame = profile.frames[0];
  const same = (i: number) => sameFunction(frames[i], cur);
  const make = () => frames.push(cur) - 1;
  const keyOf = (i: number) => functionKeyOf(frames[i]);
  const curKey = () => functionKeyOf(cur);
  const all = profile.frames;
  for (let id = 0; id < all.length; id++) {
    const f = all[id];
    if (opts.hideNodeInternals && f.category === 'node') {
      frameMap[id] = -1;
      identity = false;
      continue;
    }
    let v: number;
    if (opts.collapseDependencies && f.category === 'dependency' && f.pkg) {
      v = byPackage.get(f.pkg) ?? -1;
      if (v < 0) {
        v = frames.length;
        frames.push({ name: f.pkg, file: '', line: 0, column: 0, category: 'dependency', pkg: f.pkg });
        byPackage.set(f.pkg, v);
        packageFrames.add(v);
      }
      identity = false;
    } else {
      cur = f;
      v = mergeFunctions ? byFunction.intern(f.name, same, make, keyOf, curKey) : make();
      if (frames[v] !== f && frames[v].tier !== f.tier) frames[v] = { ...frames[v], tier: undefined };
    }
    frameMap[id] = v;
    if (v !== id) identity = false;
  }
  return { frames, frameMap, packageFrames, identity };
}

/** The fields the function merge compares besides the name. */
export function functionKeyOf(f: Frame): string {
  return JSON.stringify([f.file, f.line, f.column, f.category, f.lib ?? '']);
}
