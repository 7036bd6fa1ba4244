import * as vscode from 'vscode';
import type { Services } from '../services';

/**
 * Profile files that usually have no better viewer open here by default. VS Code asks the user to pick
 * when two default globs of one file differ, so the default globs never overlap: `isolate-*.log` (which
 * `node --prof` names `isolate-…-v8.log`) is offered under "Open With…", as is `.cpuprofile`, which
 * already has viewers.
 */
export const PROFILE_EDITOR = 'nodeFlame.profileFile';
export const PROFILE_EDITOR_OPTION = 'nodeFlame.profileFileOption';

class ProfileDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

/** Opens the viewer's page in the editor's panel at once and reads the profile file while it loads. */
export class ProfileFileEditor implements vscode.CustomReadonlyEditorProvider<ProfileDocument> {
  constructor(private readonly services: Services) {}

  openCustomDocument(uri: vscode.Uri): ProfileDocument {
    return new ProfileDocument(uri);
  }

  async resolveCustomEditor(doc: ProfileDocument, panel: vscode.WebviewPanel): Promise<void> {
    let closed = false;
    panel.onDidDispose(() => (closed = true));
    try {
      await this.services.viewer.openInPanel(panel, doc.uri.fsPath);
    } catch (e) {
      if (closed) return;
      const name = doc.uri.path.split('/').pop() ?? '';
      const why =
        e instanceof vscode.CancellationError
          ? vscode.l10n.t('reading {0} was cancelled, so it was not opened', name)
          : (e as Error).message;
      this.services.log.error(`open ${doc.uri.toString()}: ${why}`);
      panel.webview.options = { enableScripts: false, localResourceRoots: [] };
      panel.webview.html = messagePage(vscode.l10n.t('Node Flame cannot open this file'), why);
    }
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The tab of a file Node Flame cannot read: why, in words, as a page a screen reader reads like the viewer's. */
function messagePage(title: string, detail: string): string {
  return `<!DOCTYPE html><html lang="${escapeHtml(vscode.env.language)}"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>
<body><main class="cannot-open"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main></body></html>`;
}

export function registerProfileEditors(services: Services): vscode.Disposable[] {
  const provider = new ProfileFileEditor(services);
  const opts = { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: true };
  return [
    vscode.window.registerCustomEditorProvider(PROFILE_EDITOR, provider, opts),
    vscode.window.registerCustomEditorProvider(PROFILE_EDITOR_OPTION, provider, opts),
  ];
}
