// The import worker's loop (its entry, dist/worker.js, is src/launch/run/importWorker.ts, which adds run
// folders): runs imports off the extension host thread so a big file neither freezes the editor nor keeps
// it from cancelling. Serves any number of `load` requests.
import { parentPort, workerData } from 'node:worker_threads';
import * as l10n from '@vscode/l10n';
import { loadProfile, type ImportOptions } from './importers';
import { ProfileError, type Profile } from './model';
import { packProfile } from './model/transfer';
import type { LoadResult, WorkerReply, WorkerRequest } from './workerProtocol';

/** Answers the host's requests on this worker thread, reading each path with `load` (a profile file by default). */
export function serveImports(load: (path: string, opts: ImportOptions) => Promise<Profile | LoadResult> = loadProfile): void {
  const bundle = (workerData as { l10nBundle?: Record<string, string> } | undefined)?.l10nBundle;
  if (bundle) l10n.config({ contents: bundle });
  const port = parentPort;
  if (!port) return;
  const post = (m: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  port.on('message', (req: WorkerRequest) => {
    if (req.type !== 'load') return;
    let sent = -1;
    const onProgress = (f: number) => {
      // Whole percents only: a message per chunk would cost more than the parsing.
      const pct = Math.floor(Math.min(1, Math.max(0, f)) * 100);
      if (pct === sent) return;
      sent = pct;
      post({ type: 'progress', id: req.id, fraction: pct / 100 });
    };
    const t0 = performance.now();
    const heartbeat = setInterval(() => post({ type: 'alive', id: req.id }), 1000);
    load(req.path, { ...req.options, onProgress })
      .finally(() => clearInterval(heartbeat))
      .then(
        (loaded) => {
          const { profile, extra, handOver } = 'profile' in loaded ? loaded : { profile: loaded, extra: undefined, handOver: true };
          const { packed, transfer } = packProfile(profile, { handOver });
          post(
            { type: 'done', id: req.id, profile: packed, ms: performance.now() - t0, ...(extra !== undefined ? { extra } : {}) },
            transfer,
          );
        },
        (e: unknown) => {
          const err = e instanceof Error ? e : new Error(String(e));
          post({
            type: 'error',
            id: req.id,
            profileError: err instanceof ProfileError,
            name: err.name,
            message: err.message,
            file: err instanceof ProfileError ? err.file : undefined,
            stack: err.stack,
          });
        },
      );
  });
}
