import * as vscode from 'vscode';
import { findingsOf, findingsSoon, holdFindingsUntil, knownFindings } from '../findings';
import { ViewerSession } from '../../core/viewer/viewerSession';
import type { LoadedProfile, Services } from '../services';
import { exportProfileFromViewer } from './export';
import { viewerHtml } from './html';
import { webviewOptions } from './options';
import type { HostMessage, PersistedState, ViewerMessage } from '../../core/viewer/protocol';
import { answer, type ViewerHost } from '../../core/viewer/answer';
import { runTimeFactsOf } from '../../launch/run/runTimeline';
import { openFrameSource } from './source';
import { rangeOf } from './timeRange';
import { lastSampleTime, timelineWarmUp } from '../../core/model/timeline';
import { SHOW_TEXT_COMMAND } from './options';
import { webviewStrings } from '../../core/viewer/strings';

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
  private warming: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    public loaded: LoadedProfile,
    private readonly services: () => Services,
    private readonly state: PersistedState | undefined,
    onDispose: () => void,
    early?: EarlyPage,
  ) {
    this.session = new ViewerSession(
      loaded.profile,
      loaded.label,
      loaded.path,
      state?.options,
      state?.transforms,
      state?.threads,
      state?.range,
    );
    // Set before anything is derived from the profile: the page opens as it was left.
    if (state?.routes?.length && loaded.profile.requests) this.session.routes = [...state.routes];
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
    if (this.marks) this.marks.answering = Date.now();
    // Looked for after the first answer has left unless already known (see findingsSoon); sent then on their own.
    this.session.findings ??= knownFindings(this.session.profile);
    const answer = this.session.opening(webviewStrings(), { state: this.state, hostMarks: this.marks });
    if (this.marks) this.marks.answered = Date.now();
    return answer;
  }

  private painted: (() => void) | undefined;
  /** Settles when the page says it painted its first answer, or after 3 s (a page that never says so holds nothing). */
  private firstPaint(): Promise<void> {
    this.painted?.();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.painted === done) this.painted = undefined;
        resolve();
      };
      const timer = setTimeout(done, 3000);
      this.painted = done;
    });
  }

  /** The findings of the profile shown, once looked for, to a page that opened without them. */
  private sendFindings(): void {
    const session = this.session;
    findingsSoon(session.profile).then(
      (findings) => {
        // A live run's next read may have replaced the profile meanwhile: its own findings are not looked for.
        if (session !== this.session || !this.ready) return;
        session.findings = findings;
        this.post({ type: 'findings', findings });
      },
      (e: Error) => this.fail(e),
    );
  }

  /** A live run's Stop and Mark, while the panel shows it (viewer/index.ts's reserved panel sets them). */
  liveControls: { stop(): void; mark(label?: string): void } | undefined;

  /**
   * A live run's newer read, or its final profile, in place of the one shown: the page keeps its tab, toggles,
   * transforms, processes and range, and redraws in place (no new page, no flicker).
   */
  replace(loaded: LoadedProfile, live: boolean): void {
    this.loaded = loaded;
    this.session = this.session.successor(loaded.profile, loaded.label, loaded.path);
    // The rolling window moves with the run; the final profile opens whole.
    if (this.liveWindow || this.fromRestart || !live) this.session.range = live ? this.windowRange() : undefined;
    // The findings are looked for in the final profile: a second's samples would make them come and go.
    if (!live) this.session.findings = findingsOf(this.session.profile);
    this.facts = undefined;
    this.showTransformed();
    if (!live) {
      this.liveControls = undefined;
      this.warmTimeline();
    }
    if (!this.ready) {
      this.prepared = undefined;
      return;
    }
    for (const m of this.session.refresh()) this.post(m);
    this.announce(live);
  }

  /** Tells the page it shows a live run (its bar: badge, Mark, window, Stop), or that the final profile came. */
  announce(live: boolean): void {
    const marks = this.loaded.run?.info.events?.filter((e) => e.kind === 'mark').length;
    if (!this.ready) return;
    // Watch-mode restarts (the run's markers, on the profile's axis): the bar offers the comparison across the last.
    void Promise.resolve(this.host.timeFacts())
      .catch(() => undefined)
      .then((f) => {
        const restarts = f?.markers?.filter((m) => m.kind === 'restart').map((m) => m.at);
        const untimed = !this.session.profile.timeline?.times.length;
        this.post({ type: 'live', live, marks, ...(restarts?.length ? { restarts } : {}), ...(untimed ? { untimed } : {}) });
      });
  }

  /** "Last N seconds" of a live run: seconds, or undefined for the whole run. */
  private liveWindow: number | undefined;
  /** Restart window: the run's time (ms on the profile's axis) the window was restarted at, and whether it is shown. */
  private restartedAt: number | undefined;
  private fromRestart = false;
  private windowRange(): { from: number; to: number } | undefined {
    const end = lastSampleTime(this.session.profile);
    if (end === undefined) return undefined;
    if (this.fromRestart && this.restartedAt !== undefined) return { from: this.restartedAt, to: Math.max(end, this.restartedAt) + 1 };
    return this.liveWindow ? { from: Math.max(0, end - this.liveWindow * 1000), to: end + 1 } : undefined;
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

  /** What only the editor does for the page: open files, export, compare ranges, read the run folder's facts. */
  private readonly host: ViewerHost = {
    openSource: (frame, focus) => openFrameSource(frame, focus),
    // Read once per panel: the run's markers and every process's tracks, on the whole profile's axis.
    timeFacts: () => (this.facts ??= runTimeFactsOf(this.session.profile, this.loaded.path, this.loaded.run)),
    exportShown: async (session) => {
      await exportProfileFromViewer(this.loaded, this.services().log, session);
    },
    compareRanges: async (before, after) => {
      const [b, a] = [before, after].map((r) => rangeOf(this.loaded, r));
      await this.services().viewer.showDiff(b, a);
    },
    metric: (name, ms) => {
      if (name === 'firstPaint') this.painted?.();
      this.services().log.info(`viewer ${this.loaded.label}: ${name} ${ms.toFixed(1)} ms`);
    },
    // The text provider lives with the extension's side of the viewer (viewer/index.ts), which registers it.
    showText: async (title, text) => {
      await vscode.commands.executeCommand(SHOW_TEXT_COMMAND, title, text);
    },
  };
  private facts: ReturnType<ViewerHost['timeFacts']> | undefined;

  private async onMessage(m: ViewerMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        clearTimeout(this.preparing);
        // A later 'ready' (the page reloaded) may follow option changes: answer it afresh.
        const answer = this.prepared ?? this.firstAnswer();
        this.prepared = undefined;
        if (this.marks) this.marks.posted = Date.now();
        for (const a of answer) this.post(a.type === 'init' && a.kind === 'single' && this.liveControls ? { ...a, live: true } : a);
        holdFindingsUntil(this.firstPaint());
        if (!answer.some((a) => a.type === 'init' && a.kind === 'single' && a.info.findings)) this.sendFindings();
        if (this.liveControls) this.announce(true);
        else this.warmTimeline();
        if (this.pendingReveal !== undefined) this.reveal(this.pendingReveal);
        this.pendingReveal = undefined;
        return;
      }
      case 'sampleType': {
        // Another of a pprof's sample types: read the file again by it and load the page afresh.
        const { readProfile } = await import('../readProfile');
        this.loaded.profile = (await readProfile(this.loaded.path, m.sampleType)).profile;
        this.session = new ViewerSession(this.loaded.profile, this.loaded.label, this.loaded.path, this.session.options);
        this.facts = undefined;
        this.ready = false;
        setViewerPage(this.panel, this.services().context.extensionUri, this.loaded.label);
        if (this.panel.active) this.services().store.setActive(this.loaded);
        return;
      }
      case 'reveal':
        // Before the page is ready, kept for it.
        this.reveal(m.frame);
        return;
      case 'stopRun':
        // The waiting page's Stop is answered by the opener (viewer/index.ts); a live view's here.
        this.liveControls?.stop();
        return;
      case 'mark':
        this.liveControls?.mark();
        return;
      case 'liveWindow':
        this.liveWindow = m.seconds ?? undefined;
        if (m.restart) {
          // What comes after now: "did my change move it" without the run's past in the view; the Timeline marks it.
          this.restartedAt = lastSampleTime(this.session.profile);
          this.liveControls?.mark(vscode.l10n.t('window restarted'));
        }
        this.fromRestart = !!(m.restart || m.since);
        for (const a of this.session.setRange(this.windowRange())) this.post(a);
        this.showTransformed();
        return;
      default: {
        const t0 = performance.now();
        for (const a of await answer(this.session, m, this.host)) this.post(a);
        // A slow answer holds up every message after it: the log says which.
        const ms = performance.now() - t0;
        if (ms > 200) this.services().log.info(`viewer ${this.loaded.label}: answered '${m.type}' in ${ms.toFixed(0)} ms`);
        if (m.type === 'transforms' || m.type === 'threads') this.showTransformed();
      }
    }
  }

  /**
   * Counts the Timeline's index in the background once a profile is shown for good (not at each live read), a slice
   * at a time between the page's messages: the first Timeline answer of a big profile is then lookups, not a pass
   * over tens of millions of samples.
   */
  private warmTimeline(): void {
    clearTimeout(this.warming);
    const profile = this.session.profile;
    const step = timelineWarmUp(profile);
    const next = () => {
      if (this.session.profile === profile && !step(1 << 20)) this.warming = setTimeout(next, 0);
    };
    this.warming = setTimeout(next, 0);
  }

  dispose(): void {
    clearTimeout(this.warming);
    clearTimeout(this.preparing);
    for (const d of this.subs.splice(0)) d.dispose();
  }
}
