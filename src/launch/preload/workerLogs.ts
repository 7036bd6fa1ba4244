// In --prof mode V8 names an isolate's log by its address and the pid only. A worker started after another ended
// often gets the ended one's address, and V8 then truncates that log: vitest --pool=threads ran three test files in
// three workers one after the other and left one worker log (the last file's). Before each new Worker, the logs of
// the workers started so far are moved to numbered names (`isolate-<addr>-<pid>-<n>-v8.log`, which the reader
// takes as logs of the same process); V8 keeps writing a live worker's log through its open descriptor.
import { linkSync, readdirSync, unlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, dirname, join } from 'node:path';
// The module object itself (a namespace import is a copy under the bundler): Worker is replaced on it.
import workerThreads from 'node:worker_threads';

/** The file `--logfile=` names, when V8 writes it as given (no `%p`/`%t` to expand). */
function logFile(execArgv: readonly string[]): string | undefined {
  const arg = execArgv.find((a) => a.startsWith('--logfile='));
  const value = arg?.slice('--logfile='.length);
  if (!value || /%[^%]/.test(value.replace(/%%/g, ''))) return undefined;
  return value.replace(/%%/g, '%');
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Renames the worker logs of this process not in `keep` to numbered names; returns how many it moved. */
export function moveWorkerLogsAside(dir: string, base: string, pid: number, keep: ReadonlySet<string>, next: () => number): number {
  const own = new RegExp(`^isolate-(0x[0-9a-f]+)-${pid}-${escapeRe(base)}$`);
  let moved = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = own.exec(name);
    if (!m || keep.has(name)) continue;
    // A hard link, then the old name: never over a file that is there already.
    for (let tries = 0; tries < 1000; tries++) {
      try {
        linkSync(join(dir, name), join(dir, `isolate-${m[1]}-${pid}-${next()}-${base}`));
        unlinkSync(join(dir, name));
        moved++;
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') break;
      }
    }
  }
  return moved;
}

let patched = false;

/** In a --prof process's main thread: each new Worker first moves the earlier workers' logs aside. */
export function keepWorkerLogs(): void {
  if (patched || !workerThreads.isMainThread || !process.execArgv.includes('--prof')) return;
  const file = logFile(process.execArgv);
  if (!file) return;
  patched = true;
  const dir = dirname(file);
  const base = basename(file);
  let n = 0;
  const next = () => ++n;
  // The main isolate's log keeps its name.
  let keep: Set<string>;
  try {
    keep = new Set(readdirSync(dir));
  } catch {
    return;
  }
  const Base = workerThreads.Worker;
  class Worker extends Base {
    constructor(...args: ConstructorParameters<typeof Base>) {
      try {
        moveWorkerLogsAside(dir, base, process.pid, keep, next);
      } catch {
        // a log left in place is at worst overwritten, as without this
      }
      super(...args);
    }
  }
  try {
    Object.defineProperty(workerThreads, 'Worker', { value: Worker, writable: true, configurable: true, enumerable: true });
    // ESM imports of node:worker_threads (tinypool's `import { Worker }`) see the new export only after this.
    syncBuiltinESMExports();
  } catch {
    // a frozen module: workers' logs may be overwritten as before
  }
}
