import * as vscode from 'vscode';
import { notBuiltYet, type Services, type Viewer } from '../services';

/** The flame graph webview host. */
export function createViewer(_context: vscode.ExtensionContext, _services: () => Services): { viewer: Viewer; disposables: vscode.Disposable[] } {
  const viewer: Viewer = {
    show: async () => notBuiltYet(vscode.l10n.t('The flame graph viewer')),
    showDiff: async () => notBuiltYet(vscode.l10n.t('The differential flame graph')),
  };
  return { viewer, disposables: [] };
}
