import { Worker, type ResourceLimits } from 'node:worker_threads';
import * as l10n from '@vscode/l10n';
import { ProfileError, type Profile } from './model';
import { unpackProfile } from './model/transfer';
import type { LoadResult, WorkerOptions, WorkerReply, WorkerRequest } from './workerProtocol';

/** What crosses to the worker as it is (ImportOptions says what each means). */
export interface WorkerLoadOptions extends WorkerOptions {
  onProgress?: (fraction: number) => void;
  /** Called on each heartbeat of the worker (about once a second while it is not stuck). */
  onAlive?: () => void;
  /** Aborting terminates the worker: the only way to stop a parser in the middle of a chunk. */
  signal?: AbortSignal;
}

/**
 * The import worker's heap: a file that gets past the importers' own caps dies in the worker, with a
 * one-line error, instead of taking the extension host (every extension's process) past its limit.
 */
export const IMPORT_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 3072, maxYoungGenerationSizeMb: 64 };

/** An error the importer threw that is not a ProfileError: a bug, with the worker's stack. */
export class ImportCrash extends Error {}

/** Raised when the caller cancelled; the worker is gone by then. */
export class ImportCancelled extends Error {
  constructor(path: string) {
    super(l10n.t('Reading {0} was cancelled.', path));
    this.name = 'ImportCancelled';
  }
}

/**
 * One import worker (dist/worker.js). Requests run one at a time; `terminate` ends whatever runs,
 * and the pending request fails with `ImportCancelled`.
 */
export class ImportWorker {
  private readonly worker: Worker;
  private seq = 0;
  private pending?: {
    id: number;
    path: string;
    resolve: (p: LoadResult) => void;
    reject: (e: Error) => void;
    onProgress?: (f: number) => void;
    onAlive?: () => void;
  };
  private dead?: Error;

  /** `l10nBundle`: the host's translations, so the worker's warnings and errors speak the UI's language. */
  constructor(workerPath: string, l10nBundle?: Record<string, unknown>, limits: ResourceLimits = IMPORT_LIMITS) {
    this.worker = new Worker(workerPath, { workerData: { l10nBundle }, resourceLimits: limits });
    this.worker.on('message', (m: WorkerReply) => this.reply(m));
    this.worker.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ERR_WORKER_OUT_OF_MEMORY')
        return this.fail(new ImportCrash(l10n.t('the import worker crashed: {0}', e.message), { cause: e }));
      const mb = String(limits.maxOldGenerationSizeMb ?? '?');
      this.fail(new ProfileError(l10n.t('reading it took more than {0} MB of memory; the import was stopped', mb), this.pending?.path));
    });
    this.worker.on('exit', (code) => this.fail(new ImportCrash(l10n.t('the import worker exited (code {0})', String(code)))));
  }

  private reply(m: WorkerReply): void {
    const p = this.pending;
    if (!p || m.id !== p.id) return;
    if (m.type === 'progress') return p.onProgress?.(m.fraction);
    if (m.type === 'alive') return p.onAlive?.();
    this.pending = undefined;
    if (m.type === 'done') {
      const receivedAt = Date.now();
      return p.resolve({ profile: unpackProfile(m.profile), extra: m.extra, ms: m.ms, receivedAt });
    }
    if (m.profileError) return p.reject(new ProfileError(m.message, m.file));
    const e = new ImportCrash(`${m.name}: ${m.message}`);
    e.stack = m.stack;
    p.reject(e);
  }

  private fail(e: Error): void {
    this.dead ??= e;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(e);
  }

  load(path: string, opts: WorkerLoadOptions = {}): Promise<Profile> {
    return this.loadResult(path, opts).then((r) => r.profile);
  }

  /** As `load`, with what the loader read beside the profile (a run folder's run.json). */
  loadResult(path: string, opts: WorkerLoadOptions = {}): Promise<LoadResult> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.pending) return Promise.reject(new Error('ImportWorker: one load at a time'));
    if (opts.signal?.aborted) return Promise.reject(new ImportCancelled(path));
    return new Promise<LoadResult>((resolve, reject) => {
      const id = ++this.seq;
      const onAbort = () => {
        this.fail(new ImportCancelled(path));
        void this.worker.terminate();
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const done =
        <T>(f: (x: T) => void) =>
        (x: T) => {
          opts.signal?.removeEventListener('abort', onAbort);
          f(x);
        };
      this.pending = { id, path, resolve: done(resolve), reject: done(reject), onProgress: opts.onProgress, onAlive: opts.onAlive };
      const req: WorkerRequest = {
        type: 'load',
        id,
        path,
        options: {
          sourceMaps: opts.sourceMaps,
          mapsFile: opts.mapsFile,
          untrusted: opts.untrusted,
          sampleType: opts.sampleType,
          pathMapping: opts.pathMapping,
          pathMappingFormats: opts.pathMappingFormats,
          sourceMapOptions: opts.sourceMapOptions,
          live: opts.live,
        },
      };
      this.worker.postMessage(req);
    });
  }

  /** Stops the worker; a load still running fails with `ImportCancelled`. */
  async terminate(): Promise<void> {
    const p = this.pending;
    if (p) this.fail(new ImportCancelled(p.path));
    this.dead ??= new Error('ImportWorker: terminated');
    await this.worker.terminate();
  }
}

/** Imports `path` in a fresh worker that is ended afterwards (or on abort). */
export async function loadProfileInWorker(
  workerPath: string,
  path: string,
  opts: WorkerLoadOptions = {},
  l10nBundle?: Record<string, unknown>,
): Promise<Profile> {
  return (await loadResultInWorker(workerPath, path, opts, l10nBundle)).profile;
}

/** As `loadProfileInWorker`, with what the loader read beside the profile. */
export async function loadResultInWorker(
  workerPath: string,
  path: string,
  opts: WorkerLoadOptions = {},
  l10nBundle?: Record<string, unknown>,
): Promise<LoadResult> {
  const w = new ImportWorker(workerPath, l10nBundle);
  try {
    return await w.loadResult(path, opts);
  } finally {
    await w.terminate();
  }
}
