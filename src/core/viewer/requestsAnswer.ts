import { selectThreads } from '../model/processes';
import { requestsSummary } from '../model/requests';
import type { RequestsData } from './protocol';
import type { ViewerSession } from './viewerSession';

/** How many of the slowest requests the tab lists. */
const SLOWEST = 25;

/**
 * The Requests tab's figures: every route of the processes the picker keeps, over the Timeline's range but before
 * the route choice (the tab lists the routes not chosen too), and the routes chosen.
 */
export function requestsData(session: ViewerSession): RequestsData {
  const picked = selectThreads(session.profile, session.threads);
  const range = session.range;
  const profile = range ? { ...picked, meta: { ...picked.meta, range } } : picked;
  return { type: 'requests', summary: requestsSummary(profile, SLOWEST) ?? null, routes: session.routes ?? [] };
}
