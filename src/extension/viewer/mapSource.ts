import * as vscode from 'vscode';
import type { Frame } from '../../core/model/frame';

import { MAP_SOURCE_SCHEME } from './coreSource';

export { MAP_SOURCE_SCHEME };

/** The read-only document of a mapped frame's source, or undefined when the frame was not mapped. Its path is the frame's file, so CodeLens and heat find it. */
export function mapSourceUri(f: Frame): vscode.Uri | undefined {
  if (!f.generated || !f.file) return undefined;
  const path = f.file.replace(/\\/g, '/');
  return vscode.Uri.from({
    scheme: MAP_SOURCE_SCHEME,
    path: path.startsWith('/') ? path : `/${path}`,
    query: new URLSearchParams({ script: f.generated.file, file: f.file }).toString(),
  });
}

/** Reads the text from the generated script's map (core/sourcemaps caches it by path and modification time). */
export class MapSourceProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const script = q.get('script') ?? '';
    const file = q.get('file') ?? uri.path;
    // The source-map code loads with the first such document, not with the extension.
    const [{ sourceContentOf }, { workspaceSourceMapOptions }] = await Promise.all([
      import('../../core/sourcemaps'),
      import('../pathMapper'),
    ]);
    const text = await sourceContentOf(script, file, workspaceSourceMapOptions());
    if (text === undefined) throw new Error(vscode.l10n.t('The source map of {0} no longer holds the text of {1}.', script, file));
    return text;
  }
}
