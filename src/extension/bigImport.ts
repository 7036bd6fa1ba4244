import * as vscode from 'vscode';
import { basename, join } from 'node:path';
import type { Profile } from '../core/model';
import { ImportCancelled, loadProfileInWorker } from '../core/workerClient';

/**
 * Imports off the extension host thread, showing % read; Cancel ends the worker at once and rejects with
 * VS Code's CancellationError (one class for both bundles), which callers do not report as a failure.
 */
export function loadInWorker(path: string): Promise<Profile> {
  const name = basename(path);
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Node Flame: reading {0}', name), cancellable: true },
      async (progress, token) => {
        const ac = new AbortController();
        const sub = token.onCancellationRequested(() => ac.abort());
        let shown = 0;
        const onProgress = (f: number) => {
          const pct = Math.floor(f * 100);
          if (pct <= shown) return;
          progress.report({ increment: pct - shown, message: `${pct}%` });
          shown = pct;
        };
        try {
          // Bundled next to dist/extension.js by scripts/build.mjs.
          return await loadProfileInWorker(join(__dirname, 'worker.js'), path, { signal: ac.signal, onProgress }, vscode.l10n.bundle);
        } catch (e) {
          if (e instanceof ImportCancelled) throw new vscode.CancellationError();
          throw e;
        } finally {
          sub.dispose();
        }
      },
    ),
  );
}
