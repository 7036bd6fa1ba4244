import * as vscode from 'vscode';

export const TEXT_SCHEME = 'nodeflame-text';
/** The Accessible Views of a session kept readable (a reopened tab reads its text again from here). */
const KEPT = 20;

/**
 * The viewer's Accessible View as a read-only text document (a content provider's documents are read-only), so
 * the editor's screen reader support, search and copy all work on it.
 */
export class AccessibleTextProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? vscode.l10n.t('This accessible view is no longer available: open it again from the viewer.');
  }

  async show(title: string, text: string): Promise<void> {
    // A new path each time: the editor caches a provider document's text by its URI.
    const path = `/${++this.next}/${title.replace(/[/\\]/g, '_')}.txt`;
    this.texts.set(path, text);
    for (const old of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - KEPT))) this.texts.delete(old);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: TEXT_SCHEME, path }));
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}

export const accessibleTexts = new AccessibleTextProvider();
