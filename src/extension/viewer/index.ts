import * as vscode from 'vscode';
import { basename } from 'node:path';
import { type LoadedProfile, type ReservedPanel, type Services, type ShowOptions, type Viewer } from '../services';
import { CORE_SCHEME, CoreSourceProvider } from './coreSource';
import { MAP_SOURCE_SCHEME, MapSourceProvider } from './mapSource';
import type { DiffPanel } from './diffPanel';
import { DIFF_VIEW_TYPE, SHOW_TEXT_COMMAND, VIEW_TYPE, webviewOptions } from './options';
import { accessibleTexts, TEXT_SCHEME } from './accessibleView';
import type { EarlyPage, ProfilePanel } from './panel';
import type { PersistedState, WebviewMessage } from '../../core/viewer/protocol';

// The panels (viewer sessions, exporters, page shell) load when the first one opens, not at activation.
const loadPanel = () => import('./panel');
const loadDiffPanel = () => import('./diffPanel');

/** The flame graph webview host: one panel per profile, restored after a reload from the profile's path. */
export function createViewer(
  context: vscode.ExtensionContext,
  services: () => Services,
): { viewer: Viewer; disposables: vscode.Disposable[] } {
  const panels = new Map<string, ProfilePanel>();
  const diffs = new Map<string, DiffPanel>();

  // Synchronous once the panel code is loaded, so two quick `show` calls cannot both open a panel.
  const attach = (
    Panel: typeof ProfilePanel,
    panel: vscode.WebviewPanel,
    p: LoadedProfile,
    state?: PersistedState,
    early?: EarlyPage,
  ): ProfilePanel => {
    panels.get(p.id)?.panel.dispose();
    const pp = new Panel(
      panel,
      p,
      services,
      state,
      () => {
        // A live panel's profile is replaced as the run goes: its current one is the key.
        if (panels.get(pp.loaded.id) === pp) panels.delete(pp.loaded.id);
      },
      early,
    );
    panels.set(p.id, pp);
    return pp;
  };

  /** Puts the viewer's page into a panel with nobody to answer it yet, and notes when it says 'ready'. */
  const startPage = async (
    panel: vscode.WebviewPanel,
    label: string,
    waiting?: { text: string; stop: string; command: string },
    marks: Record<string, number> = { panel: Date.now() },
  ) => {
    const { ProfilePanel, setViewerPage } = await loadPanel();
    setViewerPage(panel, context.extensionUri, label, waiting);
    const early: EarlyPage = { ready: false, marks };
    marks.pageSet = Date.now();
    let closed = false;
    const subs = [
      panel.webview.onDidReceiveMessage((m: WebviewMessage) => {
        if (m.type === 'ready') early.ready = true;
        if (m.type === 'stopRun' && waiting) void vscode.commands.executeCommand(waiting.command);
      }),
      panel.onDidDispose(() => (closed = true)),
    ];
    return { ProfilePanel, early, closed: () => closed, stop: () => subs.splice(0).forEach((d) => d.dispose()) };
  };
  type Page = Awaited<ReturnType<typeof startPage>>;

  /**
   * Reads the file while the page comes up (a webview takes up to a second to start in code-server).
   * A failed read closes the panel unless `keepOnError`; `pp` is missing if the user closed the panel meanwhile.
   */
  const fill = async (
    panel: vscode.WebviewPanel,
    path: string,
    extra: Partial<LoadedProfile>,
    state: PersistedState,
    keepOnError = false,
    page?: Page,
  ): Promise<{ p: LoadedProfile; pp?: ProfilePanel }> => {
    // The read starts first: the worker's start and the page's load overlap, and the read is most of the wait.
    const marks = page?.early.marks ?? { panel: Date.now() };
    const loading = services().store.load(path, extra, marks);
    loading.catch(() => undefined); // awaited below, once the page is set
    try {
      page ??= await startPage(panel, basename(path), undefined, marks);
    } catch (e) {
      if (!keepOnError) panel.dispose();
      throw e;
    }
    try {
      const p = await loading;
      page.early.marks.read = Date.now();
      if (page.closed()) return { p };
      page.stop();
      return { p, pp: attach(page.ProfilePanel, panel, p, state, page.early) };
    } catch (e) {
      if (!page.closed() && !keepOnError) panel.dispose();
      throw e;
    } finally {
      page.stop();
    }
  };

  const viewer: Viewer = {
    async show(p: LoadedProfile, opts: ShowOptions = {}) {
      const { ProfilePanel } = await loadPanel();
      let pp = panels.get(p.id);
      if (pp) pp.panel.reveal(opts.viewColumn, opts.preserveFocus);
      else {
        const panel = vscode.window.createWebviewPanel(
          VIEW_TYPE,
          vscode.l10n.t('Flame graph: {0}', p.label),
          { viewColumn: opts.viewColumn ?? vscode.ViewColumn.Active, preserveFocus: opts.preserveFocus },
          webviewOptions(context.extensionUri),
        );
        pp = attach(ProfilePanel, panel, p, { path: p.path });
      }
      services().store.setActive(p);
      if (opts.revealFrame !== undefined) pp.reveal(opts.revealFrame);
    },
    async open(path: string, extra: Partial<LoadedProfile> = {}, opts: ShowOptions = {}) {
      const shown = [...panels.values()].find((pp) => pp.loaded.path === path);
      if (shown) {
        await viewer.show(shown.loaded, opts);
        return shown.loaded;
      }
      const panel = vscode.window.createWebviewPanel(
        VIEW_TYPE,
        vscode.l10n.t('Flame graph: {0}', basename(path)),
        { viewColumn: opts.viewColumn ?? vscode.ViewColumn.Active, preserveFocus: opts.preserveFocus },
        webviewOptions(context.extensionUri),
      );
      const { p, pp } = await fill(panel, path, extra, { path });
      services().store.setActive(p);
      if (pp && opts.revealFrame !== undefined) pp.reveal(opts.revealFrame);
      return p;
    },
    async openInPanel(panel: vscode.WebviewPanel, path: string, extra: Partial<LoadedProfile> = {}) {
      return (await fill(panel, path, extra, { path }, true)).p;
    },
    async reserve(label: string, stopCommand: string, opts: { live?: boolean } = {}): Promise<ReservedPanel> {
      const panel = vscode.window.createWebviewPanel(
        VIEW_TYPE,
        vscode.l10n.t('Flame graph: {0}', label),
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: true },
        webviewOptions(context.extensionUri),
      );
      const page = await startPage(panel, label, {
        text: opts.live
          ? vscode.l10n.t(
              'Node Flame: profiling {0}. The flame graph shows here once the first second is recorded and follows the run; the final profile replaces it when the run ends.',
              label,
            )
          : vscode.l10n.t('Node Flame: profiling {0}. The flame graph opens here when the run ends.', label),
        stop: vscode.l10n.t('Stop profiling'),
        command: stopCommand,
      });
      let taken = false;
      let live: ProfilePanel | undefined;
      // The page's own listeners stop once a live panel took it: the live panel's presence tells it is open.
      const liveGone = () => live !== undefined && panels.get(live.loaded.id) !== live;
      // The final profile in place of the live one: the page redraws in place, its view kept.
      const inPlaceOfLive = (shown: ProfilePanel, p: LoadedProfile, title: string): LoadedProfile => {
        panel.title = vscode.l10n.t('Flame graph: {0}', title);
        panels.delete(shown.loaded.id);
        shown.replace(p, false);
        panels.set(p.id, shown);
        shown.panel.reveal(panel.viewColumn);
        services().store.setActive(p);
        return p;
      };
      return {
        async open(path: string, extra: Partial<LoadedProfile> = {}) {
          taken = true;
          if (live && !liveGone()) return inPlaceOfLive(live, await services().store.load(path, extra), basename(path));
          if (page.closed() || liveGone()) return viewer.open(path, extra, { preserveFocus: true });
          panel.title = vscode.l10n.t('Flame graph: {0}', basename(path));
          const { p, pp } = await fill(panel, path, extra, { path }, false, page);
          // The user may have moved to another tab during the run: the result comes to the front, as a new panel would.
          pp?.panel.reveal(panel.viewColumn);
          services().store.setActive(p);
          return p;
        },
        async show(p: LoadedProfile) {
          taken = true;
          if (live && !liveGone()) return void inPlaceOfLive(live, p, p.label);
          if (page.closed() || liveGone()) return viewer.show(p, { preserveFocus: true });
          page.stop();
          panel.title = vscode.l10n.t('Flame graph: {0}', p.label);
          attach(page.ProfilePanel, panel, p, { path: p.path }, page.early);
          panel.reveal(panel.viewColumn);
          services().store.setActive(p);
        },
        async live(p: LoadedProfile, controls: { stop(): void; mark(label?: string): void }) {
          if (page.closed() || liveGone()) return false;
          taken = true;
          if (!live) {
            page.stop();
            live = attach(page.ProfilePanel, panel, p, { path: p.path }, page.early);
            live.liveControls = controls;
            live.announce(true);
          } else {
            // replace() tells the page itself: a second word per update was a second redraw of its bar.
            panels.delete(live.loaded.id);
            live.replace(p, true);
            panels.set(p.id, live);
            live.liveControls = controls;
          }
          return true;
        },
        hidden: () => page.closed() || liveGone() || !panel.visible,
        onShown: (listener) => {
          // The event also comes when the panel only gains or loses focus: a call is for coming into sight.
          let seen = panel.visible;
          return panel.onDidChangeViewState((e) => {
            const now = e.webviewPanel.visible;
            if (now && !seen) listener();
            seen = now;
          });
        },
        release() {
          if (taken) return;
          page.stop();
          if (!page.closed()) panel.dispose();
        },
      };
    },
    async showDiff(before: LoadedProfile, after: LoadedProfile) {
      const { DiffPanel } = await loadDiffPanel();
      const open = diffs.get(`${before.id}→${after.id}`);
      if (open) {
        open.panel.reveal();
        return;
      }
      const panel = vscode.window.createWebviewPanel(
        DIFF_VIEW_TYPE,
        diffTitle(before, after),
        vscode.ViewColumn.Active,
        webviewOptions(context.extensionUri),
      );
      attachDiff(DiffPanel, panel, before, after);
    },
  };

  const diffTitle = (before: LoadedProfile, after: LoadedProfile) => vscode.l10n.t('Compare: {0} → {1}', before.label, after.label);
  const attachDiff = (Panel: typeof DiffPanel, panel: vscode.WebviewPanel, before: LoadedProfile, after: LoadedProfile): void => {
    const key = `${before.id}→${after.id}`;
    const dp = new Panel(panel, before, after, services, () => {
      if (diffs.get(key) === dp) diffs.delete(key);
    });
    diffs.set(key, dp);
  };

  // After a reload: a read the user cancelled needs no word.
  const warnReopen = (what: string, e: unknown): void => {
    if (!(e instanceof vscode.CancellationError))
      void vscode.window.showWarningMessage(vscode.l10n.t('Node Flame could not reopen {0}: {1}', what, (e as Error).message));
  };

  // A comparison reopens from its two files (the page saved their paths).
  const diffSerializer: vscode.WebviewPanelSerializer<PersistedState> = {
    async deserializeWebviewPanel(panel, state) {
      if (!state?.diff) {
        panel.dispose();
        return;
      }
      try {
        const { diff } = state;
        const load = async (path: string, range?: { from: number; to: number }) => {
          const p = await services().store.load(path);
          // A comparison of two time ranges of one profile reopens as the same two ranges.
          return range ? (await import('./timeRange')).rangeOf(p, range) : p;
        };
        const [before, after] = await Promise.all([load(diff.before, diff.beforeRange), load(diff.after, diff.afterRange)]);
        const { DiffPanel } = await loadDiffPanel();
        panel.title = diffTitle(before, after);
        attachDiff(DiffPanel, panel, before, after);
      } catch (e) {
        panel.dispose();
        warnReopen(`${state.diff.before} → ${state.diff.after}`, e);
      }
    },
  };

  const serializer: vscode.WebviewPanelSerializer<PersistedState> = {
    async deserializeWebviewPanel(panel, state) {
      if (!state?.path) {
        panel.dispose();
        return;
      }
      try {
        panel.title = vscode.l10n.t('Flame graph: {0}', basename(state.path));
        await fill(panel, state.path, {}, state);
      } catch (e) {
        warnReopen(state.path, e);
      }
    },
  };

  const disposables: vscode.Disposable[] = [
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, serializer),
    vscode.window.registerWebviewPanelSerializer(DIFF_VIEW_TYPE, diffSerializer),
    vscode.workspace.registerTextDocumentContentProvider(CORE_SCHEME, new CoreSourceProvider()),
    vscode.workspace.registerTextDocumentContentProvider(MAP_SOURCE_SCHEME, new MapSourceProvider()),
    vscode.workspace.registerTextDocumentContentProvider(TEXT_SCHEME, accessibleTexts),
    // The viewer's Accessible View (args: title, text), asked for by a panel.
    vscode.commands.registerCommand(SHOW_TEXT_COMMAND, (title: string, text: string) => accessibleTexts.show(title, text)),
    // Opens a profile file straight in the viewer: for tests and other features (args: absolute path, show options).
    vscode.commands.registerCommand('nodeFlame.showProfileFile', async (path?: string, opts?: ShowOptions) => {
      if (path === undefined) void import('../bigImport').then((m) => m.prepareImportWorker());
      path ??= await vscode.window.showInputBox({ prompt: vscode.l10n.t('Path of a profile file to show'), ignoreFocusOut: true });
      if (!path) return;
      try {
        await viewer.open(path, {}, opts);
      } catch (e) {
        if (e instanceof vscode.CancellationError) return;
        void vscode.window.showErrorMessage(vscode.l10n.t('Node Flame could not open {0}: {1}', path, (e as Error).message));
      }
    }),
    { dispose: () => [...panels.values(), ...diffs.values()].forEach((p) => p.panel.dispose()) },
  ];
  return { viewer, disposables };
}
