import * as vscode from 'vscode';
import { execFile } from 'node:child_process';

export const CORE_SCHEME = 'nodeflame-core';

/** `node:fs`, `node:internal/fs/utils`, `internal/fs/utils.js`, `events.js` → the builtin's id. */
export function coreModuleId(file: string): string {
  return file.replace(/^node:/, '').replace(/\\/g, '/').replace(/\.js$/, '');
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
      p = readBuiltin(nodePath(), id);
      this.cache.set(id, p);
      p.catch(() => this.cache.delete(id));
    }
    return p;
  }
}

function nodePath(): string {
  return vscode.workspace.getConfiguration('nodeFlame').get<string>('nodePath') || 'node';
}

const SCRIPT = "const s=process.binding('natives')[process.argv[1]];if(typeof s!=='string')process.exit(3);process.stdout.write(s)";

export function readBuiltin(node: string, id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(node, ['--no-deprecation', '-e', SCRIPT, id], { maxBuffer: 64 * 1024 * 1024, timeout: 10000 }, (err, stdout) => {
      if (!err) return resolve(stdout);
      const code = (err as { code?: unknown }).code;
      reject(
        new Error(
          code === 3
            ? vscode.l10n.t('{0} has no built-in module named "{1}".', node, id)
            : vscode.l10n.t('Could not read the source of "{0}" from {1}: {2}', id, node, err.message),
        ),
      );
    });
  });
}
