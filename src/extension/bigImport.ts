import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Profile } from '../core/model';
import { ImportCancelled, loadProfileInWorker } from '../core/workerClient';

/** Above this, an import runs in dist/worker.js with a cancellable progress notification. */
export const WORKER_IMPORT_BYTES = 20 * 1024 * 1024;

export async function isLargeProfile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > WORKER_IMPORT_BYTES;
  } catch {
    return false; // the importer reports a missing file in its own words
  }
}

/** Imports off the extension host thread, showing % read; Cancel ends the worker at once. */
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
          if (e instanceof ImportCancelled) throw new Error(vscode.l10n.t('reading {0} was cancelled, so it was not opened', name));
          throw e;
        } finally {
          sub.dispose();
        }
      },
    ),
  );
}
