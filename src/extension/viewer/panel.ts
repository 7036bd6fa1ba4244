import * as vscode from 'vscode';
import { findingsOf } from '../findings';
import { ViewerSession } from '../../core/viewer/session';
import type { LoadedProfile, Services } from '../services';
import { exportProfileFromViewer } from './export';
import { viewerHtml } from './html';
import { webviewOptions } from './options';
import { unhandledMessage, type HostMessage, type PersistedState, type ViewerMessage } from './protocol';
import { openFrameSource } from './source';
import { rangeOf, timelineFor } from './timeline';
import { webviewStrings } from './strings';

/** Puts the viewer's page into a panel, before the profile is there: it loads while the file is read. */
export function setViewerPage(
  panel: vscode.WebviewPanel,
  extensionUri: vscode.Uri,
  label: string,
  waiting?: { text: string; stop: string },
): void {
  panel.webview.options = webviewOptions(extensionUri);
  panel.webview.html = viewerHtml(panel.webview, extensionUri, label, waiting);
}

/** A page set up before its ProfilePanel: whether the page already said 'ready' (nobody answered then). */
export interface EarlyPage {
  ready: boolean;
  /** Host-side start-up times (epoch ms), sent with the first answer. */
  marks: Record<string, number>;
}

/** One profile's webview: VS Code glue around a ViewerSession, which owns the toggles and the (sub)trees. */
export class ProfilePanel implements vscode.Disposable {
  private session: ViewerSession;
  private ready = false;
  private pendingReveal: number | undefined;
  private readonly subs: vscode.Disposable[] = [];
  /** The page takes about a second to load (in code-server); the first answer is computed meanwhile. */
  private prepared: HostMessage[] | undefined;
  private preparing: ReturnType<typeof setTimeout> | undefined;
  private readonly marks: Record<string, number> | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly loaded: LoadedProfile,
    private readonly services: () => Services,
    private readonly state: PersistedState | undefined,
    onDispose: () => void,
    early?: EarlyPage,
  ) {
    this.session = new ViewerSession(loaded.profile, loaded.label, loaded.path, state?.options, state?.transforms, state?.threads);
    this.showTransformed();
    this.marks = early?.marks;
    if (state?.tree === 'bottom') this.session.wanted.add('bottom');
    if (!early) setViewerPage(panel, services().context.extensionUri, loaded.label);
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: ViewerMessage) => this.onMessage(m).catch((e: Error) => this.fail(e))),
      panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.active) this.services().store.setActive(this.loaded);
      }),
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
    );
    if (panel.active) services().store.setActive(loaded);
    if (early?.ready) {
      void this.onMessage({ type: 'ready' }).catch((e: Error) => this.fail(e));
      return;
    }
    this.preparing = setTimeout(() => {
      try {
        this.prepared = this.firstAnswer();
      } catch (e) {
        this.fail(e as Error);
      }
    }, 0);
  }

  private firstAnswer(): HostMessage[] {
    this.session.findings ??= findingsOf(this.session.profile);
    const answer = this.session.opening(webviewStrings(), { state: this.state, hostMarks: this.marks });
    if (this.marks) this.marks.answered = Date.now();
    return answer;
  }

  /** Selects and zooms to the heaviest node of a profile frame (once the webview is up). */
  reveal(frame: number): void {
    if (!this.ready) {
      this.pendingReveal = frame;
      return;
    }
    const m = this.session.reveal(frame);
    if (m) this.post(m);
  }

  /**
   * CodeLens and heat follow the transforms and the process choice of the profile's panel (the profile stays
   * as it was read): the editor then tells the same story as the graph beside it.
   */
  private showTransformed(): void {
    const shown = this.session.transforms.length || this.session.narrowed ? this.session.shownProfile() : undefined;
    if (this.loaded.view === shown) return;
    this.loaded.view = shown;
    const store = this.services().store;
    if (store.active?.id === this.loaded.id) store.setActive(this.loaded);
  }

  private post(m: HostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private fail(e: Error): void {
    this.services().log.error(`viewer: ${e.stack ?? e.message}`);
    this.post({ type: 'error', message: e.message });
  }

  private async onMessage(m: ViewerMessage): Promise<void> {
    const session = this.session;
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        clearTimeout(this.preparing);
        // A later 'ready' (the page reloaded) may follow option changes: answer it afresh.
        const answer = this.prepared ?? this.firstAnswer();
        this.prepared = undefined;
        if (this.marks) this.marks.posted = Date.now();
        for (const a of answer) this.post(a);
        if (this.pendingReveal !== undefined) this.reveal(this.pendingReveal);
        this.pendingReveal = undefined;
        return;
      }
      case 'options':
        for (const t of session.setOptions(m.options)) this.post(t);
        return;
      case 'transforms':
        for (const t of session.setTransforms(m.transforms)) this.post(t);
        this.showTransformed();
        return;
      case 'threads':
        for (const t of session.setThreads(m.threads ?? undefined)) this.post(t);
        this.showTransformed();
        return;
      case 'sandwich':
        this.post(session.sandwich(m.fn));
        return;
      case 'sandwichExpand': {
        const t = session.sandwichExpand(m);
        if (t) this.post(t);
        return;
      }
      case 'needTree':
        this.post(session.tree(m.tree));
        return;
      case 'expand': {
        const t = session.expand(m);
        if (t) this.post(t);
        return;
      }
      case 'open': {
        const frame = m.raw ? session.profile.frames[m.frame] : session.frame(m.frame);
        if (!frame) return;
        const reason = await openFrameSource(frame, m.focus);
        if (reason) this.post({ type: 'noSource', frame: m.frame, reason });
        return;
      }
      case 'search':
        this.post(session.search(m.tree, m.term, m.regex));
        return;
      case 'reveal':
        this.reveal(m.frame);
        return;
      case 'export':
        await exportProfileFromViewer(this.loaded, this.services().log, session.shownProfile());
        return;
      case 'sampleType': {
        // Another of a pprof's sample types: read the file again by it and load the page afresh.
        const { readProfile } = await import('../readProfile');
        this.loaded.profile = await readProfile(this.loaded.path, m.sampleType);
        this.session = new ViewerSession(this.loaded.profile, this.loaded.label, this.loaded.path, session.options);
        this.ready = false;
        setViewerPage(this.panel, this.services().context.extensionUri, this.loaded.label);
        if (this.panel.active) this.services().store.setActive(this.loaded);
        return;
      }
      case 'timeline':
        this.post(await timelineFor(session.timelineProfile(), this.loaded.path, m));
        return;
      case 'compareRanges': {
        const [before, after] = [m.before, m.after].map((r) => rangeOf(this.loaded, r));
        await this.services().viewer.showDiff(before, after);
        return;
      }
      case 'metric':
        this.services().log.info(`viewer ${this.loaded.label}: ${m.name} ${m.ms.toFixed(1)} ms`);
        return;
      case 'stopRun':
        // Only the waiting page has Stop; the opener (viewer/index.ts) answers it while the run goes on.
        return;
      default:
        this.services().log.warn(`viewer: ${unhandledMessage(m)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.preparing);
    for (const d of this.subs.splice(0)) d.dispose();
  }
}
