import type { Profile } from './model';
import type { PackedProfile } from './model/transfer';
import type { ImportOptions } from './importers/types';

/** The import options that cross to the worker: plain data (a path mapper's `exists` does not cross). */
export type WorkerOptions = Pick<
  ImportOptions,
  'sourceMaps' | 'mapsFile' | 'untrusted' | 'sampleType' | 'pathMapping' | 'pathMappingFormats' | 'sourceMapOptions' | 'live'
>;

/** What the import worker (src/core/worker.ts) accepts. */
export interface WorkerRequest {
  type: 'load';
  id: number;
  path: string;
  options: WorkerOptions;
}

/**
 * What it answers: progress in whole percents and a heartbeat each second while its event loop turns (a
 * watchdog tells a stuck import from a slow one by it), then exactly one `done` or `error` per request.
 */
export type WorkerReply =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'alive'; id: number }
  | { type: 'done'; id: number; profile: PackedProfile; ms: number; extra?: unknown }
  | { type: 'error'; id: number; profileError: boolean; name: string; message: string; file?: string; stack?: string };

/**
 * A loader's answer with what it read beside the profile (a run folder's run.json), handed to the host as plain
 * data so the host does not read it again.
 */
export interface LoadResult {
  profile: Profile;
  extra?: unknown;
  /** The loader keeps nothing of the profile (a one-off read, not a live run's): its sample arrays go without a copy. */
  handOver?: boolean;
  /** The worker's own time for the read (ms), and when its answer reached the host (epoch ms): for start-up figures. */
  ms?: number;
  receivedAt?: number;
}
