import type { Profile } from '../model';
import type { ViewerHost } from './answer';
import { restoreProfile, restoreRequests, type EmbeddedProfile } from './embed';
import { readEmbeddedTimeline } from './embedTimeline';
import { ViewerSession } from './viewerSession';

/**
 * Puts the embedded timeline on the restored profile once inflated; leaves it without one when the page cannot
 * read it (the Timeline then says the profile has no times).
 */
async function attachTimeline(profile: Profile, data: EmbeddedProfile): Promise<void> {
  if (!data.timeline) return;
  try {
    const timeline = await readEmbeddedTimeline(data.timeline, profile.tree.count);
    if (!timeline.times.length) return;
    profile.timeline = timeline;
    // Requests label samples by their times: without the timeline they mean nothing.
    const requests = restoreRequests(data.requests);
    if (requests) profile.requests = requests;
  } catch (e) {
    console.warn(`node-flame: the embedded timeline could not be read: ${(e as Error).message}`);
  }
}

/** The exported page's session and host: the profile, the view and the run's facts all come from the page itself. */
export function offlineViewer(data: EmbeddedProfile): { session: ViewerSession; host: ViewerHost; inflate: () => Promise<void> } {
  const profile = restoreProfile(data);
  // Opens as it was exported: the transforms and the processes picked then are chips and picker choices to undo.
  const session = new ViewerSession(profile, data.label, data.path, data.options, data.transforms, data.shownThreads, data.range);
  session.findings = data.findings;
  // Read once the timeline (and so the requests) is there: the page waits for it when it opens with routes.
  if (data.routes?.length && data.timeline) session.routes = [...data.routes];
  let inflating: Promise<void> | undefined;
  const host: ViewerHost = {
    // No editor here: say where the code is instead.
    openSource: (f) => {
      const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '';
      return where ? `${data.strings.offline} ${where}` : data.strings.offline;
    },
    timeFacts: () => data.timeFacts,
    ...(data.timeline?.note ? { timelineNote: data.timeline.note } : {}),
  };
  return { session, host, inflate: () => (inflating ??= attachTimeline(profile, data)) };
}
