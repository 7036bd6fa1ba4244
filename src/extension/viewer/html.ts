import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/**
 * The page shell. Scripts run only with this page's nonce; styles come only from the extension's
 * files (d3 sets element styles through CSSOM, which `style-src` without 'unsafe-inline' allows).
 */
export function viewerHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  title: string,
  waiting?: { text: string; stop: string },
): string {
  const nonce = randomBytes(18).toString('base64');
  const dist = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', f)).toString();
  const media = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', f)).toString();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
  ].join('; ');
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="${esc(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${dist('codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${dist('webview.css')}">
<link rel="stylesheet" href="${media('viewer.css')}">
<title>${esc(title)}</title>
</head>
<body>
<main><h1 class="sr-only">${esc(title)}</h1>
<div id="app" data-loading="${esc(waiting?.text ?? vscode.l10n.t('Node Flame: reading {0}', title))}"${waiting ? ` data-stop="${esc(waiting.stop)}"` : ''}></div></main>
<script nonce="${nonce}" src="${dist('webview.js')}"></script>
</body>
</html>`;
}
