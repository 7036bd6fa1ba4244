import * as l10n from '@vscode/l10n';
import type { CallTree } from './callTree';
import type { Frame } from './frame';
import { NameIndex } from './nameIndex';
import { bottomUp } from './views';
import type { Profile } from './profile';
import { functionKeyOf, sameFunction } from './viewOptions';
import { OPEN_END, restrictToRange, threadsIn, timeRange, type TimeRange } from './timeline';

/**
 * A function as a transform names it: the view's merge-by-function identity (name, file, start line and
 * column). Fields left out match anything, so the CLI can name a function by its name alone (and a key saved
 * before the column was part of it still matches).
 */
export interface FunctionKey {
  name: string;
  file?: string;
  line?: number;
  column?: number;
}

/**
 * One step of the stack of call-tree transforms, applied in order to a profile's call tree. Each is plain
 * data (the viewer persists the stack and the CLI builds it from options).
 */
export type Transform =
  /** Every stack cut to start at the function's outermost occurrence; samples without it are dropped. */
  | { kind: 'focus-function'; fn: FunctionKey }
  /**
   * Only the samples under one call path, which becomes the root. `inverted`: the path is read from the
   * leaf up (a bottom-up path), and the stacks end at its last function instead.
   */
  | { kind: 'focus-subtree'; path: FunctionKey[]; inverted?: boolean }
  /** The function's frames removed; their time stays with the caller. */
  | { kind: 'merge-function'; fn: FunctionKey }
  /** Consecutive frames of a package or folder fold into the first of them (`node_modules/<pkg>`, `node:internal`, a folder). */
  | { kind: 'merge-package'; package: string }
  /** Calls of the function below itself, directly or through others, folded into its outermost call. */
  | { kind: 'collapse-recursion'; fn: FunctionKey }
  /** Samples with the function anywhere on the stack are dropped. */
  | { kind: 'drop-function'; fn: FunctionKey }
  /** Frames whose name matches the (checked) regular expression are removed, time to the caller. */
  | { kind: 'exclude'; regex: string };

export type TransformKind = Transform['kind'];

export function matchesKey(f: Frame, k: FunctionKey): boolean {
  if (f.name !== k.name) return false;
  if (k.file !== undefined && f.file !== k.file) return false;
  if (k.line !== undefined && f.line !== k.line) return false;
  return k.column === undefined || f.column === k.column;
}

/** The key the viewer uses for a frame: its function, whatever its tier. */
export function keyOf(f: Frame): FunctionKey {
  return { name: f.name, file: f.file, line: f.line, column: f.column };
}

/** Per frame: 1 where `test` holds. */
function frameMask(frames: readonly Frame[], test: (f: Frame) => boolean): Uint8Array {
  const m = new Uint8Array(frames.length);
  frames.forEach((f, i) => (m[i] = test(f) ? 1 : 0));
  return m;
}

/** Per frame: the first frame of the same function, so a focused function is one root however many tiers it ran in. */
function functionIds(frames: readonly Frame[]): Int32Array {
  const index = new NameIndex();
  const out = new Int32Array(frames.length);
  frames.forEach(
    (f, i) =>
      (out[i] = index.intern(
        f.name,
        (j) => sameFunction(frames[j], f),
        () => i,
        (j) => functionKeyOf(frames[j]),
        () => functionKeyOf(f),
      )),
  );
  return out;
}

/** The longest regular expression Exclude accepts: frame names are short, and a long pattern is likely pasted by mistake. */
export const MAX_REGEX_LENGTH = 200;

export class UnsafeRegexError extends Error {
  constructor(
    readonly reason: 'length' | 'nested' | 'adjacent' | 'backreference' | 'syntax' | 'slow',
    detail = '',
  ) {
    super(detail || reason);
    this.name = 'UnsafeRegexError';
  }
}

/**
 * A case-insensitive RegExp from user text, refused when it could take exponential time on a name:
 * longer than MAX_REGEX_LENGTH, a backreference, or a repeated group that itself holds a repetition or an
 * alternation (`(a+)+`, `(a|a)*`: the shapes that backtrack without end). What is left runs in time about
 * linear in the name, and each frame name is tested once.
 */
export function safeRegex(source: string): RegExp {
  if (source.length > MAX_REGEX_LENGTH) throw new UnsafeRegexError('length', l10n.t('longer than {0} characters', MAX_REGEX_LENGTH));
  let re: RegExp;
  try {
    re = new RegExp(source, 'i');
  } catch (e) {
    throw new UnsafeRegexError('syntax', (e as Error).message);
  }
  // Per open group: whether it holds a quantifier or an alternation.
  const groups: boolean[] = [];
  let risky = false; // what the last atom was: a group holding a repetition or alternation
  let inClass = false;
  // `a*a*a*!`: unbounded repetitions side by side split a run between them in polynomially many ways
  // (5 of them: a minute on a 100-character name). Two in a row are refused.
  let repeats = 0;
  let prevUnbounded = false; // the atom before this one repeats without bound
  let lastUnbounded = false; // this atom does
  const atom = () => {
    prevUnbounded = lastUnbounded;
    lastUnbounded = false;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      if (!inClass && /[1-9k]/.test(source[i + 1] ?? ''))
        throw new UnsafeRegexError('backreference', l10n.t('backreferences are not allowed'));
      i++;
      risky = false;
      if (!inClass) atom();
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      risky = false;
      atom();
    } else if (c === '(') {
      groups.push(false);
      risky = false;
      prevUnbounded = lastUnbounded = false;
      // `(?:`, `(?=`, `(?<name>`: the `?` is group syntax, not a quantifier.
      if (source[i + 1] === '?') i++;
    } else if (c === ')') {
      risky = groups.pop() ?? false;
      continue;
    } else if (c === '|') {
      if (groups.length) groups[groups.length - 1] = true;
      risky = false;
      prevUnbounded = lastUnbounded = false;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (c === '{' && !/^\{\d+(,\d*)?\}/.test(source.slice(i))) {
        risky = false;
        atom();
        continue;
      }
      if (risky)
        throw new UnsafeRegexError(
          'nested',
          l10n.t('a repeated group that holds a repetition or an alternation can take exponential time'),
        );
      // `{0,500}` repeats as good as without bound.
      const range = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null;
      const unbounded = c === '*' || c === '+' || (!!range && range[2] !== undefined && (range[3] === '' || Number(range[3]) > 16));
      if (unbounded && prevUnbounded)
        throw new UnsafeRegexError('adjacent', l10n.t('repetitions side by side (like a*a*) can take polynomial time'));
      // Even apart (`.*a.*a.*!`), each more repetition multiplies the work on a long run of one character.
      if (unbounded && ++repeats > MAX_REPEATS)
        throw new UnsafeRegexError('adjacent', l10n.t('more than {0} open-ended repetitions (*, +) can take polynomial time', MAX_REPEATS));
      // An optional atom between two repetitions (`a*b?a*`) leaves them side by side.
      lastUnbounded = unbounded || (c === '?' && prevUnbounded);
      if (groups.length) groups[groups.length - 1] = true;
      if (c === '{') i = source.indexOf('}', i);
      // A lazy or possessive marker after a quantifier is part of it.
      if (source[i + 1] === '?') i++;
      risky = false;
      continue;
    } else {
      risky = false;
      atom();
    }
  }
  return re;
}

/** Open-ended repetitions a pattern may hold: `.*a.*!` takes 30 ms on 256 `a`s, `.*a.*a.*!` 2.6 s. */
const MAX_REPEATS = 2;

/** How much of a name a regular expression is tried on: what is left of a polynomial pattern stays fast. */
export const MAX_MATCH_CHARS = 256;

/** How long the names of a profile may take to match one pattern before it is given up. */
export const MATCH_BUDGET_MS = 2000;

/**
 * `re.test` on the head of each name, given up (UnsafeRegexError 'slow') once all names together took
 * MATCH_BUDGET_MS: what the shape rules let through stays bounded on any profile.
 */
export function budgetedTest(re: RegExp): (name: string) => boolean {
  let spent = 0;
  return (name) => {
    const t0 = performance.now();
    const hit = re.test(name.length > MAX_MATCH_CHARS ? name.slice(0, MAX_MATCH_CHARS) : name);
    spent += performance.now() - t0;
    if (spent > MATCH_BUDGET_MS)
      throw new UnsafeRegexError('slow', l10n.t("the pattern took more than {0} ms over this profile's names", MATCH_BUDGET_MS));
    return hit;
  };
}

/** The frames in a package or folder: `node_modules/<pkg>`, `node:internal` (also old logs' `internal/`), or a folder path. */
export function inPackage(f: Frame, spec: string): boolean {
  const s = spec.replace(/\\/g, '/').replace(/\/+$/, '');
  if (!s || !f.file) return false;
  const file = f.file.replace(/\\/g, '/');
  if (s === 'node:internal' && file.startsWith('internal/')) return true;
  if (file === s || file.startsWith(s + '/')) return true;
  return !s.startsWith('/') && file.includes('/' + s + '/');
}

/** The package or folder the viewer offers to merge a frame into, or undefined when it has no file. */
export function packageOf(f: Frame): string | undefined {
  const file = f.file.replace(/\\/g, '/');
  if (!file) return undefined;
  const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (m) return `node_modules/${m[1]}`;
  if (file.startsWith('node:')) {
    const rest = file.slice(5);
    return rest.includes('/') ? `node:${rest.slice(0, rest.indexOf('/'))}` : file;
  }
  if (file.startsWith('internal/')) return 'node:internal';
  const slash = file.lastIndexOf('/');
  return slash > 0 ? file.slice(0, slash) : undefined;
}

/** Names a transform refers to that match no frame (a typo on the command line), for a warning. */
export function unmatched(frames: readonly Frame[], t: Transform): string[] {
  const keys = t.kind === 'focus-subtree' ? t.path : 'fn' in t ? [t.fn] : [];
  const out = keys.filter((k) => !frames.some((f) => matchesKey(f, k))).map((k) => k.name);
  if (t.kind === 'merge-package' && !frames.some((f) => inPackage(f, t.package))) out.push(t.package);
  return out;
}

const DROP_ROOT = { dropRootSelf: true };

/**
 * The tree without nodes that carry no samples: a transform that drops samples or folds a callee into an
 * ancestor leaves the frames between behind with nothing under them.
 */
function withoutEmpty(tree: CallTree, samplesTo?: Int32Array): CallTree {
  const total = tree.total;
  const time = tree.totalTime;
  return tree.rewrite((i, p, out) => (p >= 0 && (total[i] > 0 || time[i] > 0) ? out.child(p, tree.frame[i]) : -1), { samplesTo });
}

/**
 * One transform on a tree whose frame ids index `frames`; `fnOf` is each frame's function (computed when not
 * given). `samplesTo` (one slot per node of `tree`) is filled with the new node each node's samples went to.
 */
export function applyTransform(
  tree: CallTree,
  frames: readonly Frame[],
  t: Transform,
  fnOf?: Int32Array,
  samplesTo?: Int32Array,
): CallTree {
  const out = rewriteFor(tree, frames, t, fnOf, samplesTo);
  if (t.kind !== 'drop-function' && t.kind !== 'collapse-recursion') return out;
  const step = samplesTo && new Int32Array(out.count);
  const pruned = withoutEmpty(out, step);
  if (samplesTo && step) for (let i = 0; i < samplesTo.length; i++) samplesTo[i] = samplesTo[i] >= 0 ? step[samplesTo[i]] : -1;
  return pruned;
}

function rewriteFor(tree: CallTree, frames: readonly Frame[], t: Transform, fnOf?: Int32Array, samplesTo?: Int32Array): CallTree {
  const frame = tree.frame;
  const dropRoot = { ...DROP_ROOT, samplesTo };
  switch (t.kind) {
    case 'merge-function': {
      const hit = frameMask(frames, (f) => matchesKey(f, t.fn));
      return tree.remap((f) => (hit[f] ? -1 : f), undefined, samplesTo);
    }
    case 'exclude': {
      const test = budgetedTest(safeRegex(t.regex));
      const hit = frameMask(frames, (f) => test(f.name));
      return tree.remap((f) => (hit[f] ? -1 : f), undefined, samplesTo);
    }
    case 'drop-function': {
      const hit = frameMask(frames, (f) => matchesKey(f, t.fn));
      return tree.rewrite((i, p, out) => (p < 0 || hit[frame[i]] ? -1 : out.child(p, frame[i])), { samplesTo });
    }
    case 'merge-package': {
      const member = frameMask(frames, (f) => inPackage(f, t.package));
      return tree.rewrite((i, p, out) => (member[frame[i]] && p > 0 && member[out.frame[p]] ? p : out.child(p, frame[i])), {
        samplesTo,
      });
    }
    case 'collapse-recursion': {
      const hit = frameMask(frames, (f) => matchesKey(f, t.fn));
      // Per input node: the output node of the outermost call of the function above it (or itself), else -1.
      const outer = new Int32Array(tree.count).fill(-1);
      return tree.rewrite(
        (i, p, out) => {
          const o = outer[tree.parent[i]];
          if (hit[frame[i]] && o >= 0) {
            outer[i] = o;
            return o;
          }
          const n = out.child(p, frame[i]);
          outer[i] = o >= 0 ? o : hit[frame[i]] ? n : -1;
          return n;
        },
        { samplesTo },
      );
    }
    case 'focus-function': {
      const hit = frameMask(frames, (f) => matchesKey(f, t.fn));
      const fn = fnOf ?? functionIds(frames);
      const inside = new Uint8Array(tree.count);
      return tree.rewrite((i, p, out) => {
        const f = frame[i];
        if (inside[tree.parent[i]]) {
          inside[i] = 1;
          return out.child(p, f);
        }
        if (!hit[f]) return -1;
        inside[i] = 1;
        return out.child(0, fn[f]);
      }, dropRoot);
    }
    case 'focus-subtree':
      return t.inverted
        ? focusInverted(tree, frames, t.path, samplesTo)
        : focusPath(tree, frames, t.path, fnOf ?? functionIds(frames), samplesTo);
  }
}

/** The tree as it is; each node's samples stay on it. */
function identity(tree: CallTree, samplesTo?: Int32Array): CallTree {
  if (samplesTo) for (let i = 0; i < samplesTo.length; i++) samplesTo[i] = i;
  return tree;
}

/** Keeps what is under `path` (from the root); the path's last function becomes the root's child. */
function focusPath(tree: CallTree, frames: readonly Frame[], path: FunctionKey[], fn: Int32Array, samplesTo?: Int32Array): CallTree {
  const k = path.length;
  if (k === 0) return identity(tree, samplesTo);
  const hits = path.map((key) => frameMask(frames, (f) => matchesKey(f, key)));
  // Per input node: how many path steps its stack has matched so far; -1 once it left the path.
  const matched = new Int32Array(tree.count);
  return tree.rewrite(
    (i, p, out) => {
      const m = matched[tree.parent[i]];
      const f = tree.frame[i];
      if (m === k) {
        matched[i] = k;
        return out.child(p, f);
      }
      if (m < 0 || !hits[m][f]) {
        matched[i] = -1;
        return -1;
      }
      matched[i] = m + 1;
      return m + 1 === k ? out.child(0, fn[f]) : -1;
    },
    { ...DROP_ROOT, samplesTo },
  );
}

/**
 * A bottom-up path (leaf first): keeps the samples whose stacks end with it, each cut to end at the path's
 * last function, so in the bottom-up view that function is the only root and its callers are kept.
 */
function focusInverted(tree: CallTree, frames: readonly Frame[], path: FunctionKey[], samplesTo?: Int32Array): CallTree {
  const k = path.length;
  if (k === 0) return identity(tree, samplesTo);
  const hits = path.map((key) => frameMask(frames, (f) => matchesKey(f, key)));
  // Per input node ending a kept stack: the node its samples move up to (k-1 levels up); else -1.
  const cut = new Int32Array(tree.count).fill(-1);
  const need = new Uint8Array(tree.count);
  for (let i = 1; i < tree.count; i++) {
    if (!tree.self[i] && !tree.selfTime[i]) continue;
    let at = i;
    for (let j = 0; j < k && at > 0; j++) {
      if (!hits[j][tree.frame[at]]) break;
      if (j === k - 1) {
        cut[i] = at;
        need[at] = 1;
      } else at = tree.parent[at];
    }
  }
  for (let i = tree.count - 1; i > 0; i--) if (need[i]) need[tree.parent[i]] = 1;
  const placed = new Int32Array(tree.count);
  return tree.rewrite((i, p, out) => (placed[i] = need[i] && p >= 0 ? out.child(p, tree.frame[i]) : -1), {
    dropRootSelf: true,
    selfAt: (i) => (cut[i] >= 0 ? placed[cut[i]] : -1),
    samplesTo,
  });
}

/**
 * A stack saved before the range was state of its own held it as `{ kind: 'range' }` entries (several select what
 * they all cover): the stack without them, and their range.
 */
export function splitRange(saved: readonly unknown[]): { transforms: Transform[]; range?: TimeRange } {
  const isRange = (t: unknown): t is TimeRange & { kind: 'range' } =>
    !!t && typeof t === 'object' && (t as { kind?: unknown }).kind === 'range';
  const ranges = saved.filter(isRange);
  const transforms = saved.filter((t) => !isRange(t)) as Transform[];
  if (!ranges.length) return { transforms };
  const from = Math.max(...ranges.map((r) => Number(r.from) || 0));
  return { transforms, range: timeRange(from, Math.max(from + 1e-9, Math.min(...ranges.map((r) => Number(r.to) || OPEN_END)))) };
}

/**
 * The profile with its call tree put through `transforms` in order (after `range`, when given); the frame table is shared, the per-sample
 * timeline follows the samples to their new nodes (the samples a transform drops leave it), and thread sizes
 * and the perf sample count follow the new tree.
 */
export function applyTransforms(profile: Profile, transforms: readonly Transform[], range?: TimeRange): Profile {
  // The range picks samples, not frames: first, whatever the stack.
  if (range) profile = restrictToRange(profile, range.from, range.to);
  if (!transforms.length) return profile;
  const fnOf = functionIds(profile.frames);
  let tree = profile.tree;
  // Where each node of the profile's tree has its samples now (-1: dropped), composed over the transforms.
  const moved: Int32Array | undefined = profile.timeline ? Int32Array.from({ length: tree.count }, (_, i) => i) : undefined;
  for (const t of transforms) {
    const step = moved && new Int32Array(tree.count);
    tree = applyTransform(tree, profile.frames, t, fnOf, step);
    if (moved && step) for (let i = 0; i < moved.length; i++) moved[i] = moved[i] >= 0 ? step[moved[i]] : -1;
  }
  const before = profile.tree.weight;
  const meta = { ...profile.meta };
  if (meta.sampleCount !== undefined && before > 0) meta.sampleCount = Math.round((meta.sampleCount * tree.weight) / before);
  const threads = threadsIn(profile, tree);
  const timeline = moved && profile.timeline && followSamples(profile.timeline, moved);
  return { ...profile, meta, tree, threads, timeline, lineHits: linesStillThere(profile, tree) };
}

/** The timeline's samples on their new nodes, without those whose samples were dropped; undefined when none is left. */
function followSamples(tl: NonNullable<Profile['timeline']>, moved: Int32Array): Profile['timeline'] {
  // Counted first, then copied into typed arrays: a list of kept indexes was 8 bytes a sample more (39 M samples:
  // 300 MB), and `tl.times` is a getter on a packed timeline, read once here.
  const nodes = tl.nodes;
  const n = nodes.length;
  let kept = 0;
  for (let i = 0; i < n; i++) if (moved[nodes[i]] >= 0) kept++;
  if (!kept) return undefined;
  const times = tl.times;
  const w = tl.weights;
  const outNodes = new Uint32Array(kept);
  const outTimes = new Float64Array(kept);
  const outW = w ? new Float64Array(kept) : undefined;
  for (let i = 0, k = 0; i < n; i++) {
    const m = moved[nodes[i]];
    if (m < 0) continue;
    outNodes[k] = m;
    outTimes[k] = times[i];
    if (outW) outW[k] = w![i];
    k++;
  }
  return { nodes: outNodes, times: outTimes, ...(outW ? { weights: outW } : {}) };
}

/**
 * Line heat has no call stacks, so it cannot follow a transform line by line: the files no frame of the new
 * tree comes from lose theirs (a focus on pbkdf2Sync leaves no heat on the handler that called it).
 */
export function linesStillThere(profile: Profile, tree: CallTree): Profile['lineHits'] {
  const files = new Set<string>();
  const total = tree.total;
  for (let i = 1; i < tree.count; i++) if (total[i] > 0) files.add(profile.frames[tree.frame[i]].file);
  const out: Profile['lineHits'] = new Map();
  for (const [file, lines] of profile.lineHits) if (files.has(file)) out.set(file, lines);
  return out;
}

/**
 * The sandwich's two halves for one function: `callees` is the tree focused on it (its calls merged, it is
 * the root's only child), `callers` the bottom-up tree of the stacks cut below its outermost call, so the
 * root's only child is the function and its children are its callers. Frame ids index `frames`.
 */
export function sandwich(tree: CallTree, frames: readonly Frame[], fn: FunctionKey): { callers: CallTree; callees: CallTree } {
  const fnOf = functionIds(frames);
  const callees = applyTransform(tree, frames, { kind: 'focus-function', fn }, fnOf);
  const hit = frameMask(frames, (f) => matchesKey(f, fn));
  // Per input node: the output node of the outermost call of the function on its stack, else -1.
  const at = new Int32Array(tree.count).fill(-1);
  const cut = tree.rewrite(
    (i, p, out) => {
      const o = at[tree.parent[i]];
      if (o >= 0) return (at[i] = o);
      const f = tree.frame[i];
      const n = out.child(p, hit[f] ? fnOf[f] : f);
      if (hit[f]) at[i] = n;
      return n;
    },
    { dropRootSelf: true, selfAt: (i, placed) => (at[i] >= 0 ? placed : -1) },
  );
  return { callers: bottomUp(withoutEmpty(cut)), callees };
}
