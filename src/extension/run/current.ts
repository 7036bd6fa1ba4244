import type { ProfileSession } from '../../launch/launcher';

// Apart from profileRun, so Stop and deactivation can ask for the live run without loading the launcher.
let current: ProfileSession | undefined;

/** The live run, so "Stop Profiling" and a second "Profile Node App" find it. */
export function currentSession(): ProfileSession | undefined {
  return current;
}

export function setCurrentSession(s: ProfileSession | undefined): void {
  current = s;
}
