import * as l10n from '@vscode/l10n';
import { printable } from '../core/chars';
import type { Profile } from '../core/model';
import { restrictToRoutes, routeKeys } from '../core/model/requests';
import { NO_REQUEST } from '../core/model/requestRoutes';

/** `--route`'s samples only; a warning for a route the run has no request of, or a profile without requests. */
export function routeFilter(profile: Profile, routes: readonly string[] | undefined): Profile {
  if (!routes?.length) return profile;
  const warn = (w: string) => process.stderr.write(l10n.t('node-flame: warning: {0}', printable(w)) + '\n');
  if (!profile.requests) {
    warn(l10n.t('this profile has no HTTP requests (a run launched by Node Flame records them), so --route was not applied'));
    return profile;
  }
  const known = new Set(routeKeys(profile));
  for (const r of routes)
    if (r !== NO_REQUEST && !known.has(r))
      warn(l10n.t('no request of route "{0}" in this run (its routes: {1})', r, [...known].join(', ')));
  return restrictToRoutes(profile, routes);
}
