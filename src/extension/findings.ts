// Loaded with the first profile shown (viewer panel or diagnostics), not at activation.
import { findFindings, type Finding } from '../core/findings';
import type { Profile } from '../core/model';

const cache = new WeakMap<Profile, Finding[]>();

/** The viewer's Summary and the Problems panel show the same findings of a loaded profile: computed once for both. */
export function findingsOf(profile: Profile): Finding[] {
  let found = cache.get(profile);
  if (!found) cache.set(profile, (found = findFindings(profile)));
  return found;
}
