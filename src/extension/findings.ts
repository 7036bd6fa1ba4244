// Loaded with the first profile shown (viewer panel or diagnostics), not at activation.
import { findFindings, type Finding } from '../core/findings';
import type { Profile } from '../core/model';

const cache = new WeakMap<Profile, Finding[]>();
const pending = new WeakMap<Profile, Promise<Finding[]>>();
/** Settles when no page is waiting for its first paint any more (see holdFindingsUntil). */
let gate: Promise<unknown> = Promise.resolve();

/** The viewer's Summary and the Problems panel show the same findings of a loaded profile: computed once for both. */
export function findingsOf(profile: Profile): Finding[] {
  let found = cache.get(profile);
  if (!found) cache.set(profile, (found = findFindings(profile)));
  return found;
}

/** The findings if they were already looked for, without looking. */
export function knownFindings(profile: Profile): Finding[] | undefined {
  return cache.get(profile);
}

/**
 * A page that was just sent its first answer paints first: the rules over a big profile take 100–200 ms of this
 * thread, and VS Code delivers a webview's messages only when this thread is free (measured: the answer reached the
 * page 180 ms after it was posted, 55 ms without the rules run right after it).
 */
export function holdFindingsUntil(painted: Promise<unknown>): void {
  gate = Promise.all([gate, painted.catch(() => undefined)]);
}

/** The findings, looked for once no page waits for its first paint. */
export function findingsSoon(profile: Profile): Promise<Finding[]> {
  const found = cache.get(profile);
  if (found) return Promise.resolve(found);
  let p = pending.get(profile);
  if (!p) {
    p = (async () => {
      // A panel made in the same turn as this call holds the gate only after it: look again after a turn.
      for (let seen: Promise<unknown> | undefined; seen !== gate; ) {
        seen = gate;
        await seen;
        await new Promise((r) => setTimeout(r, 0));
      }
      return findingsOf(profile);
    })();
    pending.set(profile, p);
  }
  return p;
}
