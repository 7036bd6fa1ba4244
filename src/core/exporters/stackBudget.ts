import * as l10n from '@vscode/l10n';
import { CallTree, formatWeight, type Frame, type Profile } from '../model';

/**
 * Formats that write every stack whole (folded, speedscope) grow with the sum of all stacks' depths:
 * a chain n deep with weight on each node writes n²/2 frames from n nodes (40 000 deep: 800 million).
 * Past the budget an export keeps the heaviest stacks and puts the weight of the others on one named
 * node, instead of running for minutes and failing on the string limit.
 */
/** Past this many frames in all a file of whole stacks runs to hundreds of MB (188 MB of folded from a 39 KB pprof). */
export const MAX_STACK_FRAMES = 1 << 24;

/** Call tree nodes an export that writes every node (HTML, cpuprofile, speedscope, SVG) takes at most. */
export const MAX_EXPORT_NODES = 4_000_000;

/** The most characters of frame labels a folded export writes (64 M): a file anyone could open, far below the string limit. */
export const MAX_FOLDED_CHARS = 1 << 26;

export interface ExportBudget {
  /** Call tree nodes, the remainder's included. */
  nodes: number;
  /** Frames of all stacks written whole (0: no such limit). */
  stackFrames: number;
  /** Characters of all stacks written whole, each frame `labelChars(frame)` long (0: no such limit). */
  stackChars: number;
  labelChars?: (frame: number) => number;
}

/** What `format` writes of a profile at most: text and json summarize (any size); folded and speedscope write stacks whole. */
export function exportBudget(profile: Profile, format: string, labelChars?: (frame: number) => number): ExportBudget | undefined {
  if (format === 'text' || format === 'json') return undefined;
  const whole = format === 'folded' || format === 'speedscope';
  return {
    nodes: MAX_EXPORT_NODES,
    stackFrames: whole ? Math.min(Math.max(1 << 22, 64 * profile.tree.count), MAX_STACK_FRAMES) : 0,
    stackChars: format === 'folded' && labelChars ? MAX_FOLDED_CHARS : 0,
    labelChars,
  };
}

export interface CappedProfile {
  profile: Profile;
  /** One line saying what was cut and its share of the weight; undefined when all of it fits. */
  warning?: string;
}

/**
 * The profile within `budget`: the heaviest stacks (by their own weight; the shallower first on a tie) as long
 * as they fit, and the weight of all others on one root node named `(other stacks, <weight>)`, so the total
 * stays the profile's. A stack is a node with weight of its own and the path to it.
 */
export function capForExport(profile: Profile, format: string, budget: ExportBudget | undefined): CappedProfile {
  const tree = profile.tree;
  if (!budget) return { profile };
  const depth = tree.depths();
  const chars = budget.stackChars ? new Float64Array(tree.count) : undefined;
  let frames = 0;
  let allChars = 0;
  const weighted: number[] = [];
  for (let i = 1; i < tree.count; i++) {
    if (chars) chars[i] = chars[tree.parent[i]] + budget.labelChars!(tree.frame[i]) + 1;
    if (tree.self[i] > 0) {
      weighted.push(i);
      frames += depth[i];
      if (chars) allChars += chars[i];
    }
  }
  const over =
    tree.count > budget.nodes ||
    (budget.stackFrames > 0 && frames > budget.stackFrames) ||
    (chars !== undefined && allChars > budget.stackChars);
  if (!over) return { profile };

  weighted.sort((a, b) => tree.self[b] - tree.self[a] || depth[a] - depth[b] || a - b);
  const kept = new Uint8Array(tree.count); // 1: on a kept stack's path, 2: a kept stack itself
  kept[0] = 1;
  // One node for the remainder.
  let nodes = 2;
  let keptFrames = 0;
  let keptChars = 0;
  let keptStacks = 0;
  let limit = l10n.t('{0} call tree nodes', budget.nodes);
  for (const n of weighted) {
    let fresh = 0;
    for (let a = n; !kept[a]; a = tree.parent[a]) fresh++;
    if (nodes + fresh > budget.nodes) break;
    if (budget.stackFrames > 0 && keptFrames + depth[n] > budget.stackFrames - 1) {
      limit = l10n.t('{0} frames in all its stacks', budget.stackFrames);
      break;
    }
    if (chars && keptChars + chars[n] > budget.stackChars - 64) {
      limit = l10n.t('{0} characters of stacks', budget.stackChars);
      break;
    }
    nodes += fresh;
    keptFrames += depth[n];
    if (chars) keptChars += chars[n];
    for (let a = n; !kept[a]; a = tree.parent[a]) kept[a] = 1;
    kept[n] = 2;
    keptStacks++;
  }

  const out = new CallTree(Math.max(16, nodes));
  const map = new Int32Array(tree.count);
  let cut = 0;
  for (let i = 1; i < tree.count; i++) {
    map[i] = kept[i] ? out.child(map[tree.parent[i]], tree.frame[i]) : -1;
    if (kept[i] !== 2) cut += tree.self[i];
  }
  // Nodes without weight of their own that are not on a kept path: their samples (none) and timeline entries go to the root.
  for (let i = 1; i < tree.count; i++) if (!kept[i] && !tree.self[i] && !tree.selfTime[i]) map[i] = 0;
  const some = keptStacks < weighted.length;
  const unit = profile.meta.unit ?? 'samples';
  // perf weighs samples by period: the remainder is named in samples, as the reports count them.
  const scale =
    unit === 'samples' && profile.meta.sampleCount !== undefined && tree.weight > 0 ? profile.meta.sampleCount / tree.weight : 1;
  const amount = unit === 'samples' || unit === 'objects' ? `${formatWeight(cut * scale, unit)} ${unit}` : formatWeight(cut, unit);
  const rest: Frame = { name: l10n.t('(other stacks, {0})', amount), file: '', line: 0, column: 0, category: 'program' };
  // Only empty branches over the budget (nothing with weight cut): no remainder node.
  const restNode = some ? out.child(0, profile.frames.length) : 0;
  for (let i = 0; i < tree.count; i++) {
    if (!tree.self[i] && !tree.selfTime[i]) continue;
    const at = i === 0 ? 0 : kept[i] === 2 ? map[i] : restNode;
    out.addSelf(at, tree.self[i], tree.selfTime[i]);
    map[i] = at;
  }
  const capped: Profile = {
    ...profile,
    frames: some ? [...profile.frames, rest] : profile.frames,
    tree: out,
    ...remapTimeline(profile, map),
  };
  if (!some) return { profile: capped };
  const all = tree.weight;
  const share = all > 0 ? ((100 * cut) / all).toFixed(cut / all < 0.001 ? 3 : 1) : '0';
  const warning = l10n.t(
    'the {0} export is over its size limit ({1}): it keeps the {2} heaviest of {3} stacks; the other {4} stacks ({5}, {6} % of the total) are one node named "{7}"',
    format,
    limit,
    keptStacks,
    weighted.length,
    weighted.length - keptStacks,
    amount,
    share,
    rest.name,
  );
  return { profile: capped, warning };
}

/** The per-sample timeline through `map` (old node → the node its samples went to). */
function remapTimeline(profile: Profile, map: Int32Array): Pick<Profile, 'timeline'> {
  const tl = profile.timeline;
  return tl ? { timeline: { ...tl, nodes: tl.nodes.map((n) => Math.max(0, map[n])) } } : {};
}
