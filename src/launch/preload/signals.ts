/** The signals that end a process unless it handles them: a launcher's stop, a terminal's, nodemon's restart. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR2'] as const;

const writers: ((signal: string) => void)[] = [];

/**
 * Registers what a process must write before it dies by a signal (an in-process profile, its record):
 * a signal's default action ends the process without an 'exit' event.
 */
export function writeBeforeSignalDeath(write: (signal: string) => void): void {
  writers.push(write);
}

/**
 * Runs `write` once when the process ends: at 'exit', or before it dies by a stop signal when `signals` (the
 * main thread: signals reach no other). Whichever comes first; a signal's writers run before the exit it may cause.
 */
export function writeOnceAtEnd(write: () => void, signals = true): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    write();
  };
  process.on('exit', once);
  if (signals) writeBeforeSignalDeath(once);
}

/**
 * Installs the preload's signal handlers. The app's own handler decides what a signal does: ours then
 * does nothing, so a graceful shutdown runs as written (and its `process.exit` writes the profile).
 * Without one, the process must still die the way it would have: with in-process profilers (cpu-prof,
 * heap) the writers write, then the signal is raised again with its default action restored, so a parent
 * sees the same death (nodemon waits for SIGUSR2's). A `--prof` log has no writer to call: there
 * SIGINT and SIGTERM end in `process.exit` as before, which flushes V8's log.
 */
export function handleStopSignals(inProcess: boolean): void {
  for (const sig of STOP_SIGNALS) {
    if (!inProcess && (sig === 'SIGHUP' || sig === 'SIGUSR2')) continue;
    const ours = (): void => {
      if (process.listeners(sig).some((l) => l !== ours)) return;
      if (!inProcess) return process.exit(0);
      for (const w of writers)
        try {
          w(sig);
        } catch {
          // one writer's failure must not keep the process alive
        }
      process.removeListener(sig, ours);
      process.kill(process.pid, sig);
    };
    process.on(sig, ours);
  }
}
