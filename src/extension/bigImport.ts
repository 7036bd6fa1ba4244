import * as vscode from 'vscode';
import { basename, join } from 'node:path';
import { ImportCancelled, ImportWorker, type WorkerLoadOptions } from '../core/workerClient';
import type { LoadResult } from '../core/workerProtocol';

export interface WorkerImportOptions {
  /** Show a cancellable notification with % read (big files). */
  notify: boolean;
  /** The worker is ended when it has been stuck this long: no heartbeat and no progress. */
  idleTimeoutMs: number;
  untrusted: boolean;
  /** A pprof's sample type to weigh by (the viewer's picker). */
  sampleType?: string;
  /** Path mapping and source-map settings, applied in the worker (see ImportOptions). */
  mapping?: Pick<WorkerLoadOptions, 'pathMapping' | 'pathMappingFormats' | 'sourceMapOptions'>;
}

/** An import that reports no progress for this many times the stuck budget is stopped too. */
const STALL_FACTOR = 10;

/** An unused started worker is ended after this long. */
const SPARE_MS = 60_000;
let spare: { worker: ImportWorker; timer: NodeJS.Timeout } | undefined;

// Bundled next to dist/extension.js by scripts/build.mjs.
const newWorker = () => new ImportWorker(join(__dirname, 'worker.js'), vscode.l10n.bundle);

/**
 * Starts the import worker while the user picks a file: loading its code takes 0.05–0.15 s (more on a busy machine),
 * which the read then does not wait for. Unused, it is ended after a minute.
 */
export function prepareImportWorker(): void {
  if (spare) return void spare.timer.refresh();
  const worker = newWorker();
  const timer = setTimeout(() => {
    if (spare?.worker === worker) spare = undefined;
    void worker.terminate();
  }, SPARE_MS);
  spare = { worker, timer };
}

function takeWorker(): ImportWorker {
  const s = spare;
  if (!s) return newWorker();
  spare = undefined;
  clearTimeout(s.timer);
  return s.worker;
}

/** Raised when the watchdog stopped an import; its message says why, for the tab or the notification. */
export class ImportTimedOut extends Error {}

/**
 * Imports off the extension host thread. Cancel (big files) ends the worker at once and rejects with VS
 * Code's CancellationError (one class for both bundles), which callers do not report as a failure. A
 * worker that is stuck (its event loop sends no heartbeat), or that makes no progress for ten times as long
 * (waiting on something that never answers), is ended too, and that is reported (ImportTimedOut).
 */
export async function loadInWorker(path: string, opts: WorkerImportOptions): Promise<LoadResult> {
  const name = basename(path);
  const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>, token?: vscode.CancellationToken) => {
    const ac = new AbortController();
    const sub = token?.onCancellationRequested(() => ac.abort());
    let timedOut: 'stuck' | 'stalled' | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let stall: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        timedOut = 'stuck';
        ac.abort();
      }, opts.idleTimeoutMs);
    };
    // A worker alive but waiting for ever (a tool that never answers) makes no progress at all.
    const armStall = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        timedOut = 'stalled';
        ac.abort();
      }, opts.idleTimeoutMs * STALL_FACTOR);
    };
    let shown = 0;
    const onProgress = (f: number) => {
      const pct = Math.floor(f * 100);
      if (pct <= shown) return;
      arm();
      armStall();
      progress?.report({ increment: pct - shown, message: `${pct}%` });
      shown = pct;
    };
    arm();
    armStall();
    const worker = takeWorker();
    try {
      return await worker.loadResult(path, {
        ...opts.mapping,
        signal: ac.signal,
        onProgress,
        onAlive: arm,
        untrusted: opts.untrusted,
        sampleType: opts.sampleType,
      });
    } catch (e) {
      if (e instanceof ImportCancelled && timedOut === 'stalled') {
        const secs = String(Math.round((opts.idleTimeoutMs * STALL_FACTOR) / 1000));
        throw new ImportTimedOut(
          vscode.l10n.t(
            'Node Flame stopped reading {0}: it made no progress for {1} s (10 × the setting nodeFlame.importTimeoutSeconds).',
            name,
            secs,
          ),
        );
      }
      if (e instanceof ImportCancelled && timedOut) {
        const secs = String(Math.round(opts.idleTimeoutMs / 1000));
        throw new ImportTimedOut(
          vscode.l10n.t(
            'Node Flame stopped reading {0}: its reader was stuck for {1} s (setting nodeFlame.importTimeoutSeconds). The file may be damaged or built to be slow to read.',
            name,
            secs,
          ),
        );
      }
      if (e instanceof ImportCancelled) throw new vscode.CancellationError();
      throw e;
    } finally {
      // Not awaited: tearing down a heap that held a big file takes tens of ms that the caller need not wait for.
      void worker.terminate();
      clearTimeout(watchdog);
      clearTimeout(stall);
      sub?.dispose();
    }
  };
  if (!opts.notify) return run();
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Node Flame: reading {0}', name), cancellable: true },
      (progress, token) => run(progress, token),
    ),
  );
}
