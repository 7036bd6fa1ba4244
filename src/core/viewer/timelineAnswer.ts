import type { Profile } from '../model';
import { activity, noTimeReason, threadActivities, timeOrdered, timeSpan, type Activity } from '../model/timeline';
import type { ActivityInfo, TimelineData, TimelineRequest, TimeMarker, TimeTrack } from './protocol';
import { frameInfos } from './viewerSession';

/** Wider requests are answered at this many pixels: the page scales. */
const MAX_WIDTH = 4096;

const info = (a: Activity): ActivityInfo => ({ from: a.from, to: a.to, bucketMs: a.bucketMs, series: a.series, peak: a.peak });

/** The Timeline's answer for one window of a profile (the whole profile, before any transform: the page shows the range selected on it). */
export function timelineData(
  profile: Profile,
  req: TimelineRequest,
  extra: { markers?: TimeMarker[]; tracks?: TimeTrack[] } = {},
): TimelineData {
  const t0 = performance.now();
  const span = timeSpan(profile) ?? null;
  const empty = { depth: [], start: [], end: [], frame: [] };
  if (!span)
    return {
      type: 'timeline',
      span,
      noTime: noTimeReason(profile),
      from: 0,
      to: 0,
      boxes: empty,
      depth: 0,
      truncated: false,
      frames: {},
      hostMs: performance.now() - t0,
    };
  const width = Math.max(16, Math.min(MAX_WIDTH, Math.floor(req.width) || 800));
  let from = Number.isFinite(req.from) ? Math.max(span.start, req.from!) : span.start;
  let to = Number.isFinite(req.to) ? Math.min(span.end, req.to!) : span.end;
  if (!(to > from)) [from, to] = [span.start, span.end];
  // Half a pixel, a hair under the columns' width so a one-column box is kept.
  const chart = timeOrdered(profile, from, to, ((to - from) / width / 2) * 0.99, 50000, width * 2);
  const boxes = { depth: [] as number[], start: [] as number[], end: [] as number[], frame: [] as number[] };
  const used = new Set<number>();
  for (const b of chart.boxes) {
    boxes.depth.push(b.depth);
    boxes.start.push(b.start);
    boxes.end.push(b.end);
    boxes.frame.push(b.frame);
    used.add(b.frame);
  }
  const frames = frameInfos(profile.frames, { frame: [...used] });
  const buckets = Math.floor(width / 2);
  // Each activity is a few thousand lookups in the profile's index (model/activityIndex.ts), not a pass over the samples.
  const overview = req.overview ? activity(profile, span.start, span.end, buckets) : undefined;
  const lanes = req.overview ? threadActivities(profile, span.start, span.end, buckets) : undefined;
  return {
    type: 'timeline',
    span,
    from,
    to,
    overview: overview && info(overview),
    lanes: lanes?.map((l) => ({ thread: l.thread, activity: info(l.activity) })),
    activity: info(overview && from === span.start && to === span.end ? overview : activity(profile, from, to, buckets)),
    boxes,
    depth: chart.depth,
    truncated: chart.truncated,
    frames,
    ...extra,
    hostMs: performance.now() - t0,
  };
}
