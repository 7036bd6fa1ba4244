import * as vscode from 'vscode';
import { isEpochMs, type Profile } from '../../core/model';
import { applyTransforms } from '../../core/model/transforms';
import type { LoadedProfile } from '../services';
import type { TimelineData, TimelineRequest } from '../../core/viewer/protocol';
import { timelineData } from '../../core/viewer/timeline';
import { runTimeFacts } from '../../launch/runTimeline';

/** The Timeline's answer, with the markers and tracks of the run folder the profile came from (if any). */
export async function timelineFor(profile: Profile, path: string, req: TimelineRequest): Promise<TimelineData> {
  // A profile that knows the wall-clock time of its 0 (a run's processes merged, a marked tick log) gets markers and
  // the tracks of each of its processes on that axis.
  const startEpochMs = isEpochMs(profile.meta.startTime) ? profile.meta.startTime : undefined;
  const pids = [...new Set(profile.threads.map((t) => t.pid).filter((p): p is number => p !== undefined))];
  const facts = req.overview ? await runTimeFacts(path, { startEpochMs, pids }).catch(() => undefined) : undefined;
  return timelineData(profile, req, facts ?? {});
}

/** One time range of a loaded profile, as a profile of its own for a comparison (startup against the rest). */
export function rangeOf(p: LoadedProfile, r: { from: number; to: number }): LoadedProfile {
  const ms = (t: number) => (t < 1e300 ? String(Math.round(t)) : '…');
  return {
    id: `${p.id}#${r.from}-${r.to}`,
    label: vscode.l10n.t('{0} ({1}–{2} ms)', p.label, ms(r.from), ms(r.to)),
    path: p.path,
    profile: applyTransforms(p.profile, [{ kind: 'range', from: r.from, to: r.to }]),
    range: { from: r.from, to: r.to },
  };
}
