import type { PackedProfile } from './model/transfer';

/** What the import worker (src/core/worker.ts) accepts. */
export interface WorkerRequest {
  type: 'load';
  id: number;
  path: string;
  options: { sourceMaps?: boolean; mapsFile?: string; untrusted?: boolean; sampleType?: string };
}

/**
 * What it answers: progress in whole percents and a heartbeat each second while its event loop turns (a
 * watchdog tells a stuck import from a slow one by it), then exactly one `done` or `error` per request.
 */
export type WorkerReply =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'alive'; id: number }
  | { type: 'done'; id: number; profile: PackedProfile; ms: number }
  | { type: 'error'; id: number; profileError: boolean; name: string; message: string; file?: string; stack?: string };
