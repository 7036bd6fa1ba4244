/** `seeds`: the folder of the fuzz seeds (test/fixtures/fuzz). */
/** A `perf script` text of about `target` bytes. */
export function makePerf(file: string, target: number, seeds: string): Promise<{ samples: number; reps: number }>;
/** A `--prof` tick log of about `target` bytes. */
export function makeV8Log(file: string, target: number, seeds: string): Promise<{ samples: number; reps: number }>;
/** Folded stacks of a random `n`-node call tree; `{root}` in an `extra` line is the root frame's name. Returns the lines. */
export function writeTreeFolded(file: string, n: number, extra?: string[]): string[];
/** A `.cpuprofile` of about `target` bytes: the seed's tree `nodeCopies` times, its samples repeated. */
export function makeCpuProfile(
  file: string,
  target: number,
  seeds: string,
  nodeCopies?: number,
): Promise<{ samples: number; nodes: number; reps: number }>;
