import { bottomUp, capped, categoryWeights, tickSummary, type CallTree, type Frame, type Profile } from '../model';
import { heaviestNodeOf, pathTo, pruneTree, windowRootFor, type CompactTree } from '../model/prune';
import { processRows, selectThreads, type ProcessRow } from '../model/processes';
import { threadsBesides } from '../model/waiting';
import { searchShare } from '../model/search';
import { applyViewOptions, type ProfileView, type ViewOptions } from '../model/viewOptions';
import { applyTransforms, safeRegex, sandwich, splitRange, UnsafeRegexError, type FunctionKey, type Transform } from '../model/transforms';
import { timeRange, type TimeRange } from '../model/timeline';
import { restrictToRoutes } from '../model/requests';
import type { FindingInfo, FrameInfo, HostMessage, PersistedState, ProfileInfo, SandwichSide, TreeKind } from './protocol';

/** The first Exclude pattern of a stack that safeRegex refuses, with why. */
function refusedRegex(transforms: readonly Transform[]): { reason: string; detail: string } | undefined {
  for (const t of transforms) {
    if (t.kind !== 'exclude') continue;
    try {
      safeRegex(t.regex);
    } catch (e) {
      return { reason: e instanceof UnsafeRegexError ? e.reason : 'syntax', detail: (e as Error).message };
    }
  }
  return undefined;
}

/**
 * What a single-profile viewer answers, without any editor: the call-tree transforms, the view toggles,
 * the pruned (sub)trees, the sandwich view, the search share. The extension's panel and the offline HTML
 * export both drive one of these.
 */
export class ViewerSession {
  options: ViewOptions;
  /** The call-tree transforms, in order; everything shown (and exported) is the profile after them. */
  transforms: Transform[];
  /** The threads the process picker keeps (a process is all its threads), before the transforms; undefined: all. */
  threads: string[] | undefined;
  /**
   * The user (or a saved page) chose the processes: a live run's next read keeps the choice. The first choice made
   * for a profile is not one: made from a read that lacked the later processes, it would hide them from the final one.
   */
  private threadsChosen: boolean;
  /** The Timeline's selection: the views show only its samples; the Timeline shows the whole span, the range marked. */
  range: TimeRange | undefined;
  /** The Requests tab's choice of HTTP routes (`GET /auth`): the views show only their requests' samples; undefined: all. */
  routes: string[] | undefined;
  private rows: ProcessRow[] | undefined;
  generation = 0;
  private view: ProfileView | undefined;
  private bottom: CallTree | undefined;
  private transformed: Profile | undefined;
  private picked: Profile | undefined;
  private timed: Profile | undefined;
  private sandwiched: { generation: number; fn: FunctionKey; trees: Record<SandwichSide, CallTree> } | undefined;
  readonly wanted = new Set<TreeKind>(['top']);
  /**
   * Set by whoever made the session (core/findings, host side): the offline page gets them from the export,
   * whose profile has no line hits left, and the page bundle stays free of the rules.
   */
  findings?: FindingInfo[];

  constructor(
    readonly profile: Profile,
    readonly label: string,
    readonly path: string,
    options?: ViewOptions,
    transforms?: Transform[],
    threads?: string[],
    range?: TimeRange,
  ) {
    this.options = { mergeBy: 'function', ...options };
    // A stack saved by an older page may hold a pattern this one refuses (start without it then), or its range.
    const saved = splitRange(transforms ?? []);
    this.transforms = !refusedRegex(saved.transforms) ? saved.transforms : [];
    this.range = range ?? saved.range;
    this.threadsChosen = threads !== undefined;
    this.threads = this.known(threads ?? this.withoutWaiting());
  }

  /** The first choice of a run: every process but those that only waited for their children (npm, nodemon). */
  private withoutWaiting(): string[] | undefined {
    const waited = (this.profile.meta.processes ?? []).filter((p) => p.waited).map((p) => p.pid);
    return waited.length ? threadsBesides(this.profile, waited) : undefined;
  }

  /** The names of a choice that are threads of this profile; undefined when none (or no choice) is. */
  private known(threads: readonly string[] | undefined): string[] | undefined {
    const names = threads?.filter((n) => this.profile.threads.some((t) => t.name === n));
    return names?.length && names.length < this.profile.threads.length ? names : undefined;
  }

  /** True when the picker keeps only some of the profile's processes or threads. */
  get narrowed(): boolean {
    return this.threads !== undefined;
  }

  /** The processes and threads the picker keeps, before the transforms: what the Timeline draws. */
  pickedProfile(): Profile {
    return (this.picked ??= selectThreads(this.routes ? restrictToRoutes(this.profile, this.routes) : this.profile, this.threads));
  }

  /**
   * What the Timeline draws: the picked processes through the call-tree transforms, not the time range (the
   * Timeline shows the whole span with the range marked on it), so a dropped function leaves the activity graph too.
   */
  timelineProfile(): Profile {
    // Without a range the shown profile is this one: not computed twice.
    return (this.timed ??= this.range ? applyTransforms(this.pickedProfile(), this.transforms) : this.shownProfile());
  }

  /** The profile as the transforms leave it: what the views, the summary, the editor's hot spots and exports read. */
  shownProfile(): Profile {
    return (this.transformed ??= applyTransforms(this.pickedProfile(), this.transforms, this.range));
  }

  currentView(): ProfileView {
    if (!this.view) {
      this.view = applyViewOptions(this.shownProfile(), this.options);
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

  /**
   * A new transform stack: the trees again, after a message with the stack and the facts. A refused
   * Exclude pattern leaves the old stack, said in `error`; the trees are sent all the same, so the page's
   * generation count (it counts every stack it asks for) stays the host's.
   */
  setTransforms(transforms: Transform[]): HostMessage[] {
    const error = refusedRegex(transforms);
    if (!error) this.transforms = [...transforms];
    return this.restacked(error ? 'tree' : 'shown', error);
  }

  /** Another time range (undefined: the whole span), answered like a new stack: the Timeline's samples stay. */
  setRange(range: TimeRange | undefined): HostMessage[] {
    this.range = range && timeRange(range.from, range.to);
    return this.restacked('shown');
  }

  /** Another choice of HTTP routes (undefined or none: every sample), answered like a choice of processes. */
  setRoutes(routes: string[] | undefined): HostMessage[] {
    this.routes = routes?.length ? [...routes] : undefined;
    return this.restacked('picked');
  }

  /**
   * Another choice of processes and threads (undefined: all). Answered like a new transform stack: the stack
   * (unchanged) with the facts of what is now shown, then the trees.
   */
  setThreads(threads: string[] | undefined): HostMessage[] {
    this.threadsChosen = true;
    this.threads = this.known(threads);
    return this.restacked('picked');
  }

  /**
   * A new generation after a change of what is shown: what it makes stale is derived again on demand (`picked`:
   * the processes and all after them; `shown`: the transformed profiles; `tree`: only the views); then the stack
   * with the facts of what is shown, and the trees the page shows.
   */
  private restacked(from: 'picked' | 'shown' | 'tree', error?: { reason: string; detail: string }): HostMessage[] {
    if (from === 'picked') this.picked = undefined;
    if (from !== 'tree') this.transformed = this.timed = undefined;
    this.generation++;
    this.view = undefined;
    this.sandwiched = undefined;
    return [this.transformsMessage(error), ...[...this.wanted].map((k) => this.tree(k))];
  }

  /** This view of another profile (a live run's newer read, or its final one): toggles, transforms, processes and range kept. */
  successor(profile: Profile, label = this.label, path = this.path): ViewerSession {
    const chosen = this.threadsChosen ? this.threads : undefined;
    const next = new ViewerSession(profile, label, path, this.options, this.transforms, chosen, this.range);
    // "Every process", asked for, stays every process (the successor's own first choice would leave the waiting ones out).
    if (this.threadsChosen && !chosen) [next.threads, next.threadsChosen] = [undefined, true];
    next.generation = this.generation + 1;
    for (const k of this.wanted) next.wanted.add(k);
    // A live run's next read (or its final profile) keeps the Requests tab's choice, as it keeps the processes'.
    if (this.routes && profile.requests) next.routes = [...this.routes];
    return next;
  }

  /** What a page showing the session before needs to show this successor in place: the facts, then the trees. */
  refresh(): HostMessage[] {
    return [this.transformsMessage(), ...[...this.wanted].map((k) => this.tree(k))];
  }

  private transformsMessage(error?: { reason: string; detail: string }): HostMessage {
    return {
      type: 'transforms',
      generation: this.generation,
      transforms: this.transforms,
      ...(this.range ? { range: this.range } : {}),
      ...(this.routes ? { routes: [...this.routes] } : {}),
      info: this.info(),
      error,
    };
  }

  /** The answer to the page's 'ready': the profile's facts, the transform stack when there is one, then every tree it shows. */
  opening(
    strings: Record<string, string>,
    extra: { state?: PersistedState; offline?: boolean; hostMarks?: Record<string, number> } = {},
  ): HostMessage[] {
    const stack = this.transforms.length || this.threads || this.range || this.routes ? [this.transformsMessage()] : [];
    return [
      { type: 'init', kind: 'single', info: this.info(), options: this.options, strings, ...extra },
      ...stack,
      ...[...this.wanted].map((k) => this.tree(k)),
    ];
  }

  /** The sandwich view of one function in the current view: its callers (bottom-up) and its callees. */
  sandwich(fn: FunctionKey): HostMessage {
    const v = this.currentView();
    const trees = sandwich(v.tree, v.frames, fn);
    this.sandwiched = { generation: this.generation, fn, trees };
    const callers = pruneTree(trees.callers);
    const callees = pruneTree(trees.callees);
    return {
      type: 'sandwich',
      generation: this.generation,
      fn,
      callers,
      callees,
      frames: { ...frameInfos(v.frames, callers), ...frameInfos(v.frames, callees) },
    };
  }

  /** More detail of one half of the sandwich (a zoom into a pruned entry). */
  sandwichExpand(m: { generation: number; side: SandwichSide; node: number; small: boolean; minWeight: number }): HostMessage | undefined {
    const sw = this.sandwiched;
    if (!sw || m.generation !== this.generation || sw.generation !== this.generation) return undefined;
    const data = pruneTree(sw.trees[m.side], { root: m.node, smallerThan: m.small ? m.minWeight : undefined });
    return {
      type: 'sandwich',
      generation: this.generation,
      fn: sw.fn,
      expand: { side: m.side, node: m.node, small: m.small, data },
      frames: this.frameInfos(data),
    };
  }

  tree(kind: TreeKind, reveal?: number): HostMessage {
    this.wanted.add(kind);
    const t0 = performance.now();
    const tree = this.treeOf(kind);
    // A node deeper than the depth window is shown in the window around it, from one of its callers.
    const root = reveal !== undefined ? windowRootFor(tree, reveal) : 0;
    const data = pruneTree(tree, reveal !== undefined ? { root, keep: pathTo(tree, reveal).slice(tree.depth(root)) } : {});
    return {
      type: 'tree',
      tree: kind,
      generation: this.generation,
      data,
      frames: this.frameInfos(data),
      reveal,
      hostMs: performance.now() - t0,
    };
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
    return {
      type: 'tree',
      tree: m.tree,
      generation: this.generation,
      data,
      frames: this.frameInfos(data),
      expand: { node: m.node, small: m.small },
      hostMs: performance.now() - t0,
    };
  }

  /** Share of all samples under a matching frame (each sample once), over the full tree, not the pruned one. */
  search(kind: TreeKind, term: string, regex: boolean): HostMessage {
    return { type: 'search', term, ...searchShare(this.treeOf(kind), this.currentView().frames, term, regex) };
  }

  /** The picker's rows, from the whole profile (shares of every sample, whatever is chosen). */
  processRows(): ProcessRow[] {
    return (this.rows ??= processRows(this.profile));
  }

  frameInfos(data: CompactTree): Record<number, FrameInfo> {
    return frameInfos(this.currentView().frames, data);
  }

  info(): ProfileInfo {
    const p = this.shownProfile();
    const categories = categoryWeights(p);
    return {
      label: this.label,
      path: this.path,
      format: p.format,
      mode: p.meta.mode,
      command: p.meta.command,
      nodeVersion: p.meta.nodeVersion,
      ...(p.meta.v8Version ? { v8Version: p.meta.v8Version } : {}),
      durationMs: p.meta.durationMs,
      intervalMs: p.meta.intervalMs,
      intervalBytes: p.meta.intervalBytes,
      totalWeight: p.tree.weight,
      unit: p.meta.unit ?? 'samples',
      threads: p.threads.map((t) => ({ name: t.name, samples: t.samples })),
      warnings: p.warnings,
      categories,
      tick: tickSummary(categories),
      findings: this.findings,
      ...(this.processRows().length
        ? { processes: this.processRows(), shownThreads: this.threads ?? null, allWeight: this.profile.tree.weight }
        : {}),
      ...(this.profile.requests ? { requests: true } : {}),
      ...(p.meta.sampleTypes ? { sampleTypes: p.meta.sampleTypes.map((t) => t.type), sampleType: p.meta.sampleType } : {}),
    };
  }
}

/** Only the frames a compact tree uses, with only the fields the webview shows. */
export function frameInfos(frames: readonly Frame[], data: Pick<CompactTree, 'frame'>): Record<number, FrameInfo> {
  const out: Record<number, FrameInfo> = {};
  for (const f of data.frame) {
    if (f < 0 || out[f]) continue;
    const { name, file, line, column, category, tier, pkg, lib, generated } = frames[f];
    out[f] = {
      name: capped(name),
      file: capped(file),
      line,
      column,
      category,
      tier,
      pkg,
      lib: lib === undefined ? lib : capped(lib),
      generated,
    };
  }
  return out;
}
