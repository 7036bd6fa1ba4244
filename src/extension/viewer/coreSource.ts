import * as vscode from 'vscode';

export const CORE_SCHEME = 'nodeflame-core';
/** Sources that exist only inside a source map's `sourcesContent` (see mapSource.ts); here, as this module is in both bundles. */
export const MAP_SOURCE_SCHEME = 'nodeflame-source';

/** `node:fs`, `node:internal/fs/utils`, `internal/fs/utils.js`, `events.js` → the builtin's id. */
export function coreModuleId(file: string): string {
  return file
    .replace(/^node:/, '')
    .replace(/\\/g, '/')
    .replace(/\.js$/, '');
}

export function coreUri(file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CORE_SCHEME, path: `/${coreModuleId(file)}.js` });
}

/**
 * Node's own JavaScript, read from the node binary that runs profiles (its builtins table), so line
 * numbers match that version. Documents of a content provider are read-only.
 */
export class CoreSourceProvider implements vscode.TextDocumentContentProvider {
  private readonly cache = new Map<string, Promise<string>>();

  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = uri.path.replace(/^\//, '').replace(/\.js$/, '');
    let p = this.cache.get(id);
    if (!p) {
      // child_process loads when a builtin is first opened, not with the extension.
      p = import('./readBuiltin').then((m) => m.readBuiltin(nodePath(), id));
      this.cache.set(id, p);
      p.catch(() => this.cache.delete(id));
    }
    return p;
  }
}

function nodePath(): string {
  return vscode.workspace.getConfiguration('nodeFlame').get<string>('nodePath') || 'node';
}
