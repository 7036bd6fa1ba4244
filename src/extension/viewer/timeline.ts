import type { Profile } from '../../core/model';
import type { TimelineData, TimelineRequest } from '../../core/viewer/protocol';
import { timelineData } from '../../core/viewer/timeline';
import { runTimeFacts } from '../../launch/runTimeline';

/** The Timeline's answer, with the markers and tracks of the run folder the profile came from (if any). */
export async function timelineFor(profile: Profile, path: string, req: TimelineRequest): Promise<TimelineData> {
  const facts = req.overview ? await runTimeFacts(path).catch(() => undefined) : undefined;
  return timelineData(profile, req, facts ?? {});
}
