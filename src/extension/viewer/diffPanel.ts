import * as vscode from 'vscode';
import { DiffSession } from '../../core/viewer/diffSession';
import type { LoadedProfile, Services } from '../services';
import { exportDiffFromViewer } from './export';
import { viewerHtml } from './html';
import { SHOW_TEXT_COMMAND, webviewOptions } from './options';
import { accessibleDiffText } from '../../core/viewer/accessibleDiffText';
import { unhandledMessage, type DiffMessage, type DiffSide, type HostMessage, type SizeBy } from '../../core/viewer/protocol';
import { openFrameSource } from './source';
import { webviewStrings } from '../../core/viewer/strings';

const side = (p: LoadedProfile): DiffSide => ({
  label: p.label,
  path: p.path,
  format: p.profile.format,
  totalWeight: p.profile.tree.weight,
  unit: p.profile.meta.unit ?? 'samples',
  ...(p.range ? { range: p.range } : {}),
});

/** The comparison webview: the same page as a profile's, started in its differential mode. */
export class DiffPanel implements vscode.Disposable {
  private readonly session: DiffSession;
  private sizeBy: SizeBy = 'after';
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly before: LoadedProfile,
    readonly after: LoadedProfile,
    private readonly services: () => Services,
    onDispose: () => void,
  ) {
    const t0 = performance.now();
    this.session = new DiffSession(before.profile, after.profile, { before: side(before), after: side(after) });
    services().log.info(
      `diff ${before.label} → ${after.label}: ${this.session.diff.tree.count} nodes merged, ${this.session.changes.length} functions, ${(performance.now() - t0).toFixed(0)} ms`,
    );
    const uri = services().context.extensionUri;
    panel.webview.options = webviewOptions(uri);
    panel.webview.html = viewerHtml(panel.webview, uri, panel.title);
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: DiffMessage) => this.onMessage(m).catch((e: Error) => this.fail(e))),
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
    );
  }

  private post(m: HostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private fail(e: Error): void {
    this.services().log.error(`diff viewer: ${e.stack ?? e.message}`);
    this.post({ type: 'error', message: e.message });
  }

  private async onMessage(m: DiffMessage): Promise<void> {
    const s = this.session;
    switch (m.type) {
      case 'ready':
        this.post(s.init(webviewStrings()));
        this.post(s.tree(this.sizeBy));
        return;
      case 'sizeBy':
        this.sizeBy = m.sizeBy;
        this.post(s.tree(m.sizeBy));
        return;
      case 'diffExpand':
        this.post(s.tree(m.sizeBy, m));
        return;
      case 'search':
        this.post(s.search(this.sizeBy, m.term, m.regex));
        return;
      case 'open': {
        const frame = s.frame(m.frame);
        if (!frame) return;
        const reason = await openFrameSource(frame, m.focus);
        if (reason) this.post({ type: 'noSource', frame: m.frame, reason });
        return;
      }
      case 'export':
        await exportDiffFromViewer(this.before, this.after, s.changes, this.services().log);
        return;
      case 'accessibleView': {
        const { title, text } = accessibleDiffText(s);
        await vscode.commands.executeCommand(SHOW_TEXT_COMMAND, title, text);
        return;
      }
      case 'metric':
        this.services().log.info(`diff viewer ${this.before.label} → ${this.after.label}: ${m.name} ${m.ms.toFixed(1)} ms`);
        return;
      default:
        this.services().log.warn(`diff viewer: ${unhandledMessage(m)}`);
    }
  }

  dispose(): void {
    for (const d of this.subs.splice(0)) d.dispose();
  }
}
