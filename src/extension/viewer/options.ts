import * as vscode from 'vscode';

// Kept apart from the panels: activation registers the serializer with these, the panels load later.
export const VIEW_TYPE = 'nodeFlame.viewer';
export const DIFF_VIEW_TYPE = 'nodeFlame.diffViewer';
/** Opens a viewer's Accessible View (args: title, text); not in the palette. */
export const SHOW_TEXT_COMMAND = 'nodeFlame.showAccessibleText';

/** Only the bundles and the stylesheet: nothing else of the extension or the workspace is reachable. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    retainContextWhenHidden: true,
    enableFindWidget: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}
