import * as vscode from 'vscode';
import type { LoadedProfile, Services } from '../services';
import { isLargeProfile } from '../largeProfile';

/**
 * Profile files that usually have no better viewer open here by default. VS Code asks the user to pick
 * when two default globs of one file differ, so the default globs never overlap: `isolate-*.log` (which
 * `node --prof` names `isolate-…-v8.log`) is offered under "Open With…", as is `.cpuprofile`, which
 * already has viewers.
 */
export const PROFILE_EDITOR = 'nodeFlame.profileFile';
export const PROFILE_EDITOR_OPTION = 'nodeFlame.profileFileOption';

class ProfileDocument implements vscode.CustomDocument {
  constructor(
    readonly uri: vscode.Uri,
    readonly loaded?: LoadedProfile,
    readonly error?: string,
  ) {}
  dispose(): void {}
}

/** Loads a profile file into the store, then lets the viewer render it in the editor's panel. */
export class ProfileFileEditor implements vscode.CustomReadonlyEditorProvider<ProfileDocument> {
  constructor(private readonly services: Services) {}

  async openCustomDocument(uri: vscode.Uri, _ctx: vscode.CustomDocumentOpenContext, token: vscode.CancellationToken): Promise<ProfileDocument> {
    try {
      const loaded = await loadWithProgress(this.services, uri, token);
      return new ProfileDocument(uri, loaded);
    } catch (e) {
      if (e instanceof vscode.CancellationError) return new ProfileDocument(uri, undefined, vscode.l10n.t('reading {0} was cancelled, so it was not opened', uri.path.split('/').pop() ?? ''));
      this.services.log.error(`open ${uri.toString()}: ${(e as Error).message}`);
      return new ProfileDocument(uri, undefined, (e as Error).message);
    }
  }

  async resolveCustomEditor(doc: ProfileDocument, panel: vscode.WebviewPanel): Promise<void> {
    if (!doc.loaded) {
      panel.webview.options = { enableScripts: false, localResourceRoots: [] };
      panel.webview.html = messagePage(vscode.l10n.t('Node Flame cannot open this file'), doc.error ?? '');
      return;
    }
    const loaded = doc.loaded;
    const { store, viewer } = this.services;
    store.setActive(loaded);
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active && store.active?.id !== loaded.id) store.setActive(loaded);
    });
    if (viewer.showInPanel) {
      await viewer.showInPanel(panel, loaded);
      return;
    }
    // A viewer that only makes its own panels: hand over to it and close this tab.
    panel.webview.html = messagePage(vscode.l10n.t('Opening in the Node Flame viewer…'), loaded.path);
    await viewer.show(loaded);
    panel.dispose();
  }
}

/** Rejects with vscode.CancellationError when the user cancels (callers stay quiet about it). */
async function loadWithProgress(services: Services, uri: vscode.Uri, token?: vscode.CancellationToken): Promise<LoadedProfile> {
  const load = async () => {
    const loaded = await services.store.load(uri.fsPath, { runDir: runDirOf(uri.fsPath) });
    if (token?.isCancellationRequested) throw new vscode.CancellationError();
    return loaded;
  };
  // A big file shows its own progress, with % and Cancel: one notification, not two.
  if (await isLargeProfile(uri.fsPath)) return load();
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Node Flame: reading {0}', uri.path.split('/').pop() ?? '') }, load);
}

/** `<ws>/.nodeflame/<run>/<file>` → `<ws>/.nodeflame/<run>`. */
export function runDirOf(path: string): string | undefined {
  const m = /^(.*[\\/]\.nodeflame[\\/][^\\/]+)[\\/][^\\/]+$/.exec(path);
  return m ? m[1] : undefined;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function messagePage(title: string, detail: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>
<body><h2>${escapeHtml(title)}</h2><p>${escapeHtml(detail)}</p></body></html>`;
}

export function registerProfileEditors(services: Services): vscode.Disposable[] {
  const provider = new ProfileFileEditor(services);
  const opts = { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: true };
  return [vscode.window.registerCustomEditorProvider(PROFILE_EDITOR, provider, opts), vscode.window.registerCustomEditorProvider(PROFILE_EDITOR_OPTION, provider, opts)];
}
