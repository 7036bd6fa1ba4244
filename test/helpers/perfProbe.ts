// Whether perf can record here (perf_event_paranoid, no counters: the cpu-clock event for the user's own process).
import { spawnSync } from 'node:child_process';

const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });

/** Why perf cannot record here (a test's `skip`), or false when it can. */
export const perfCannotRecord: string | false =
  probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;
