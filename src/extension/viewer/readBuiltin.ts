// Reads a builtin's source through a child node; loaded on the first nodeflame-core document (CoreSourceProvider).
import * as vscode from 'vscode';
import { execFile } from 'node:child_process';

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
