import * as vscode from 'vscode';
import { bottomUp, categoryWeights, tickSummary, type CallTree } from '../../core/model';
import { heaviestNodeOf, pathTo, pruneTree, type CompactTree } from '../../core/model/prune';
import { matchedWeight, nameMatcher } from '../../core/model/search';
import { applyViewOptions, type ProfileView, type ViewOptions } from '../../core/model/transform';
import type { LoadedProfile, Services } from '../services';
import { viewerHtml, webviewOptions } from './html';
import type { FrameInfo, HostMessage, PersistedState, ProfileInfo, TreeKind, WebviewMessage } from './protocol';
import { openFrameSource } from './source';
import { webviewStrings } from './strings';

/** One profile's webview: owns the view toggles and answers the webview's requests for (sub)trees. */
export class ProfilePanel implements vscode.Disposable {
  private options: ViewOptions;
  private generation = 0;
  private view: ProfileView | undefined;
  private bottom: CallTree | undefined;
  private readonly wanted = new Set<TreeKind>(['top']);
  private ready = false;
  private pendingReveal: number | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly loaded: LoadedProfile,
    private readonly services: () => Services,
    private readonly state: PersistedState | undefined,
    onDispose: () => void,
  ) {
    this.options = { mergeBy: 'function', ...state?.options };
    if (state?.tree === 'bottom') this.wanted.add('bottom');
    const uri = services().context.extensionUri;
    panel.webview.options = webviewOptions(uri);
    panel.webview.html = viewerHtml(panel.webview, uri, loaded.label);
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: WebviewMessage) => this.onMessage(m).catch((e: Error) => this.fail(e))),
      panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.active) this.services().store.setActive(this.loaded);
      }),
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
    );
    if (panel.active) services().store.setActive(loaded);
  }

  /** Selects and zooms to the heaviest node of a profile frame (once the webview is up). */
  reveal(frame: number): void {
    if (!this.ready) {
      this.pendingReveal = frame;
      return;
    }
    const v = this.currentView();
    const f = v.frameMap[frame] ?? -1;
    const node = f >= 0 ? heaviestNodeOf(v.tree, f) : -1;
    if (node < 0) return;
    this.sendTree('top', node);
  }

  private currentView(): ProfileView {
    if (!this.view) {
      this.view = applyViewOptions(this.loaded.profile, this.options);
      this.bottom = undefined;
    }
    return this.view;
  }

  private treeOf(kind: TreeKind): CallTree {
    const v = this.currentView();
    if (kind === 'top') return v.tree;
    return (this.bottom ??= bottomUp(v.tree));
  }

  private post(m: HostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private fail(e: Error): void {
    this.services().log.error(`viewer: ${e.stack ?? e.message}`);
    this.post({ type: 'error', message: e.message });
  }

  private frameInfos(data: CompactTree): Record<number, FrameInfo> {
    const frames = this.currentView().frames;
    const out: Record<number, FrameInfo> = {};
    for (const f of data.frame) {
      if (f < 0 || out[f]) continue;
      const { name, file, line, column, category, tier, pkg, lib, generated } = frames[f];
      out[f] = { name, file, line, column, category, tier, pkg, lib, generated };
    }
    return out;
  }

  private sendTree(kind: TreeKind, reveal?: number): void {
    const t0 = performance.now();
    const tree = this.treeOf(kind);
    const data = pruneTree(tree, reveal !== undefined ? { keep: pathTo(tree, reveal) } : {});
    this.post({ type: 'tree', tree: kind, generation: this.generation, data, frames: this.frameInfos(data), reveal, hostMs: performance.now() - t0 });
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        this.post({ type: 'init', kind: 'single', info: this.info(), options: this.options, strings: webviewStrings(), state: this.state });
        for (const k of this.wanted) this.sendTree(k);
        if (this.pendingReveal !== undefined) this.reveal(this.pendingReveal);
        this.pendingReveal = undefined;
        return;
      }
      case 'options':
        this.options = { ...m.options };
        this.generation++;
        this.view = undefined;
        for (const k of this.wanted) this.sendTree(k);
        return;
      case 'needTree':
        this.wanted.add(m.tree);
        this.sendTree(m.tree);
        return;
      case 'expand': {
        if (m.generation !== this.generation) return;
        const t0 = performance.now();
        const data = pruneTree(this.treeOf(m.tree), { root: m.node, smallerThan: m.small ? m.minWeight : undefined });
        this.post({ type: 'tree', tree: m.tree, generation: this.generation, data, frames: this.frameInfos(data), expand: { node: m.node, small: m.small }, hostMs: performance.now() - t0 });
        return;
      }
      case 'open': {
        const frame = this.currentView().frames[m.frame];
        if (!frame) return;
        const reason = await openFrameSource(frame, m.focus);
        if (reason) this.post({ type: 'noSource', frame: m.frame, reason });
        return;
      }
      case 'search':
        this.post(this.search(m.tree, m.term, m.regex));
        return;
      case 'metric':
        this.services().log.info(`viewer ${this.loaded.label}: ${m.name} ${m.ms.toFixed(1)} ms`);
        return;
      case 'state':
        return;
    }
  }

  /** Share of all samples under a matching frame (each sample once), over the full tree, not the pruned one. */
  private search(kind: TreeKind, term: string, regex: boolean): HostMessage {
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

  private info(): ProfileInfo {
    const p = this.loaded.profile;
    const categories = categoryWeights(p);
    return {
      label: this.loaded.label,
      path: this.loaded.path,
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
    };
  }

  dispose(): void {
    for (const d of this.subs.splice(0)) d.dispose();
  }
}
