import type { Profile } from '../model';
import { activity, noTimeReason, threadActivities, timeOrdered, timeSpan, type Activity } from '../model/timeline';
import type { ActivityInfo, TimelineData, TimelineRequest, TimeMarker, TimeTrack } from './protocol';
import { frameInfos } from './viewerSession';

/** Wider requests are answered at this many pixels: the page scales. */
const MAX_WIDTH = 4096;

const info = (a: Activity): ActivityInfo => ({ from: a.from, to: a.to, bucketMs: a.bucketMs, series: a.series, peak: a.peak });

type Whole = { overview: Activity; lanes?: { thread: string; activity: Activity }[] };
/**
 * The whole span's activity (and each thread's) by profile and bucket count: each is a pass over every sample (tens
 * of millions in a big profile, most of a Timeline answer), and the page asks for the same whole span again at each
 * zoom, each range, and for the view itself until it is zoomed.
 */
const wholes = new WeakMap<Profile, Map<number, Whole>>();

function wholeSpan(profile: Profile, span: { start: number; end: number }, buckets: number, withLanes: boolean): Whole {
  let byBuckets = wholes.get(profile);
  if (!byBuckets) wholes.set(profile, (byBuckets = new Map()));
  let w = byBuckets.get(buckets);
  if (!w) {
    // A few widths of the panel are kept; resizing it makes new ones.
    if (byBuckets.size >= 4) byBuckets.delete(byBuckets.keys().next().value!);
    w = { overview: activity(profile, span.start, span.end, buckets) };
    byBuckets.set(buckets, w);
  }
  // The lanes only go with the overview: a view's answer does not pay a pass per thread for them.
  if (withLanes) w.lanes ??= threadActivities(profile, span.start, span.end, buckets);
  return w;
}

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
  const whole = req.overview ? wholeSpan(profile, span, buckets, true) : undefined;
  return {
    type: 'timeline',
    span,
    from,
    to,
    overview: whole ? info(whole.overview) : undefined,
    lanes: whole?.lanes?.map((l) => ({ thread: l.thread, activity: info(l.activity) })),
    activity: info(
      from === span.start && to === span.end ? wholeSpan(profile, span, buckets, false).overview : activity(profile, from, to, buckets),
    ),
    boxes,
    depth: chart.depth,
    truncated: chart.truncated,
    frames,
    ...extra,
    hostMs: performance.now() - t0,
  };
}
