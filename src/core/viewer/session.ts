import { bottomUp, categoryWeights, tickSummary, type CallTree, type Frame, type Profile } from '../model';
import { heaviestNodeOf, pathTo, pruneTree, type CompactTree } from '../model/prune';
import { matchedWeight, nameMatcher } from '../model/search';
import { applyViewOptions, type ProfileView, type ViewOptions } from '../model/transform';
import type { FrameInfo, HostMessage, PersistedState, ProfileInfo, TreeKind } from './protocol';

/**
 * What a single-profile viewer answers, without any editor: the view toggles, the pruned (sub)trees,
 * the search share. The extension's panel and the offline HTML export both drive one of these.
 */
export class ViewerSession {
  options: ViewOptions;
  generation = 0;
  private view: ProfileView | undefined;
  private bottom: CallTree | undefined;
  readonly wanted = new Set<TreeKind>(['top']);

  constructor(
    readonly profile: Profile,
    readonly label: string,
    readonly path: string,
    options?: ViewOptions,
  ) {
    this.options = { mergeBy: 'function', ...options };
  }

  currentView(): ProfileView {
    if (!this.view) {
      this.view = applyViewOptions(this.profile, this.options);
      this.bottom = undefined;
    }
    return this.view;
  }

  treeOf(kind: TreeKind): CallTree {
    const v = this.currentView();
    if (kind === 'top') return v.tree;
    return (this.bottom ??= bottomUp(v.tree));
  }

  /** The view's frame for a frame id the webview sent. */
  frame(id: number): Frame | undefined {
    return this.currentView().frames[id];
  }

  setOptions(options: ViewOptions): HostMessage[] {
    this.options = { ...options };
    this.generation++;
    this.view = undefined;
    return [...this.wanted].map((k) => this.tree(k));
  }

  /** The answer to the page's 'ready': the profile's facts, then every tree it shows. */
  opening(strings: Record<string, string>, extra: { state?: PersistedState; offline?: boolean; hostMarks?: Record<string, number> } = {}): HostMessage[] {
    return [{ type: 'init', kind: 'single', info: this.info(), options: this.options, strings, ...extra }, ...[...this.wanted].map((k) => this.tree(k))];
  }

  tree(kind: TreeKind, reveal?: number): HostMessage {
    this.wanted.add(kind);
    const t0 = performance.now();
    const tree = this.treeOf(kind);
    const data = pruneTree(tree, reveal !== undefined ? { keep: pathTo(tree, reveal) } : {});
    return { type: 'tree', tree: kind, generation: this.generation, data, frames: this.frameInfos(data), reveal, hostMs: performance.now() - t0 };
  }

  /** The tree message that selects the heaviest node of a profile frame, or undefined when it is not drawn. */
  reveal(profileFrame: number): HostMessage | undefined {
    const v = this.currentView();
    const f = v.frameMap[profileFrame] ?? -1;
    const node = f >= 0 ? heaviestNodeOf(v.tree, f) : -1;
    return node < 0 ? undefined : this.tree('top', node);
  }

  expand(m: { tree: TreeKind; generation: number; node: number; small: boolean; minWeight: number }): HostMessage | undefined {
    if (m.generation !== this.generation) return undefined;
    const t0 = performance.now();
    const data = pruneTree(this.treeOf(m.tree), { root: m.node, smallerThan: m.small ? m.minWeight : undefined });
    return { type: 'tree', tree: m.tree, generation: this.generation, data, frames: this.frameInfos(data), expand: { node: m.node, small: m.small }, hostMs: performance.now() - t0 };
  }

  /** Share of all samples under a matching frame (each sample once), over the full tree, not the pruned one. */
  search(kind: TreeKind, term: string, regex: boolean): HostMessage {
    const tree = this.treeOf(kind);
    let test: (name: string) => boolean;
    try {
      test = nameMatcher(term, regex);
    } catch (e) {
      return { type: 'search', term, samples: 0, fraction: 0, error: (e as Error).message };
    }
    const samples = matchedWeight(tree, this.currentView().frames, test);
    return { type: 'search', term, samples, fraction: tree.weight > 0 ? samples / tree.weight : 0 };
  }

  frameInfos(data: CompactTree): Record<number, FrameInfo> {
    return frameInfos(this.currentView().frames, data);
  }

  info(): ProfileInfo {
    const p = this.profile;
    const categories = categoryWeights(p);
    return {
      label: this.label,
      path: this.path,
      format: p.format,
      mode: p.meta.mode,
      command: p.meta.command,
      nodeVersion: p.meta.nodeVersion,
      durationMs: p.meta.durationMs,
      intervalMs: p.meta.intervalMs,
      totalWeight: p.tree.weight,
      threads: p.threads.map((t) => ({ name: t.name, samples: t.samples })),
      warnings: p.warnings,
      categories,
      tick: tickSummary(categories),
      ...(p.meta.sampleTypes ? { sampleTypes: p.meta.sampleTypes.map((t) => t.type), sampleType: p.meta.sampleType } : {}),
    };
  }
}

/** Only the frames a compact tree uses, with only the fields the webview shows. */
export function frameInfos(frames: readonly Frame[], data: CompactTree): Record<number, FrameInfo> {
  const out: Record<number, FrameInfo> = {};
  for (const f of data.frame) {
    if (f < 0 || out[f]) continue;
    const { name, file, line, column, category, tier, pkg, lib, generated } = frames[f];
    out[f] = { name, file, line, column, category, tier, pkg, lib, generated };
  }
  return out;
}
