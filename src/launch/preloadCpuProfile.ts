import { join } from 'node:path';
import type * as Inspector from 'node:inspector';
import { isMainThread } from 'node:worker_threads';
import { RUN_DIR_ENV } from './processRecords';
import { createNewFileSync } from '../core/safeWrite';
import { runIsLive } from './runLiveness';

/** Set by the launcher for a command run in cpu-prof mode. */
export const CPU_PROF_ENV = 'NODE_FLAME_CPU_PROF';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A process a tool started with `process.execPath` and its own flags (tsx watch's restarts, a spawn
 * without execArgv) misses `--cpu-prof`, which Node refuses in NODE_OPTIONS. The preload profiles
 * it in-process instead and writes the file at exit under the name `--cpu-prof` would give it.
 */
export function cpuProfileWithoutFlag(): void {
  const dir = process.env[RUN_DIR_ENV];
  if (!dir || !process.env[CPU_PROF_ENV] || !isMainThread || process.execArgv.some((a) => a.startsWith('--cpu-prof'))) return;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Session } = require('node:inspector') as typeof Inspector;
    const session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.start');
    const t = new Date();
    const name = `CPU.${t.getFullYear()}${pad(t.getMonth() + 1)}${pad(t.getDate())}.${pad(t.getHours())}${pad(t.getMinutes())}${pad(t.getSeconds())}.${process.pid}.0.001.cpuprofile`;
    process.on('exit', () => {
      // In-process inspector calls answer synchronously, as an exit handler needs.
      session.post('Profiler.stop', (err, r) => {
        try {
          if (!err && runIsLive(dir)) createNewFileSync(join(dir, name), JSON.stringify(r.profile));
        } catch {
          // a full disk or a finished run's folder: the app's exit is not the place for a stack trace
        }
      });
    });
  } catch {
    // a node without the inspector: this process goes unprofiled, the run goes on
  }
}
