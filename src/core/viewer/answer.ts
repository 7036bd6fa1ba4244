import type { Frame, Profile } from '../model';
import type { HostMessage, TimeFacts, TimeTrack, ViewerMessage } from './protocol';
import { unhandledMessage } from './protocol';
import type { ViewerSession } from './viewerSession';
import { timelineData } from './timelineAnswer';
import { requestsData } from './requestsAnswer';
import { accessibleText, accessibleTitle } from './accessibleText';

/**
 * What only a host can do. The editor opens files, writes exports and reads the run folder; the offline page
 * says where the code is and carries the run's facts in itself. Everything else the page asks is answered by
 * `answer`, the same for both.
 */
export interface ViewerHost {
  /** Opens a frame's source; the reason when it cannot. */
  openSource(frame: Frame, focus: boolean): Promise<string | undefined> | string | undefined;
  /** The run's markers and every process's tracks, on the axis of the session's whole profile. */
  timeFacts(): Promise<Partial<TimeFacts> | undefined> | Partial<TimeFacts> | undefined;
  /** Said above the Timeline's chart (the offline page's thinned timeline). */
  timelineNote?: string;
  /** The toolbar's Export; absent where nothing can be written. */
  exportShown?(session: ViewerSession): Promise<void>;
  compareRanges?(before: { from: number; to: number }, after: { from: number; to: number }): Promise<void>;
  metric?(name: string, ms: number): void;
  /** Opens the Accessible View's text read-only; absent: the page shows it itself. */
  showText?(title: string, text: string): Promise<void>;
}

/** Messages only an adapter can answer: 'ready' (its opening), 'sampleType' (reads the file again), a live run's 'stopRun', 'mark' and 'liveWindow'. */
export type AdapterMessage = Extract<ViewerMessage, { type: 'ready' | 'sampleType' | 'stopRun' | 'mark' | 'liveWindow' }>;
export type AnsweredMessage = Exclude<ViewerMessage, AdapterMessage>;

/**
 * The tracks for the processes the picker keeps: each one's event-loop delay, and its heap when it is the only one
 * (several heaps would push the chart off the view). Tracks without a pid belong to whatever is shown.
 */
export function tracksFor(tracks: readonly TimeTrack[], shown: Profile): TimeTrack[] {
  const pids = new Set(shown.threads.map((t) => t.pid).filter((p): p is number => p !== undefined));
  const kept = pids.size ? tracks.filter((t) => t.pid === undefined || pids.has(t.pid)) : [...tracks];
  const one = new Set(kept.map((t) => t.pid)).size <= 1;
  return one ? kept : kept.filter((t) => t.kind !== 'heapUsed');
}

/** The one answer to a page's message, whichever host the page is in. */
export async function answer(session: ViewerSession, m: AnsweredMessage, host: ViewerHost): Promise<HostMessage[]> {
  const one = (x: HostMessage | undefined) => (x ? [x] : []);
  switch (m.type) {
    case 'options':
      return session.setOptions(m.options);
    case 'transforms':
      return session.setTransforms(m.transforms);
    case 'range':
      return session.setRange(m.range ?? undefined);
    case 'threads':
      return session.setThreads(m.threads ?? undefined);
    case 'requests':
      return [requestsData(session)];
    case 'routes':
      return [...session.setRoutes(m.routes ?? undefined), requestsData(session)];
    case 'sandwich':
      return [session.sandwich(m.fn)];
    case 'sandwichExpand':
      return one(session.sandwichExpand(m));
    case 'needTree':
      return [session.tree(m.tree)];
    case 'expand':
      return one(session.expand(m));
    case 'search':
      return [session.search(m.tree, m.term, m.regex)];
    case 'reveal':
      return one(session.reveal(m.frame));
    case 'timeline': {
      // The Timeline follows the picker and the call-tree transforms; the run's markers and the kept processes'
      // tracks go with the whole span's overview.
      const shown = session.timelineProfile();
      const facts = m.overview ? await host.timeFacts() : undefined;
      const extra = facts ? { markers: facts.markers ?? [], tracks: tracksFor(facts.tracks ?? [], shown) } : {};
      return [{ ...timelineData(shown, m, extra), ...(host.timelineNote ? { note: host.timelineNote } : {}) }];
    }
    case 'open': {
      const f = m.raw ? session.profile.frames[m.frame] : session.frame(m.frame);
      if (!f) return [];
      const reason = await host.openSource(f, m.focus);
      return reason ? [{ type: 'noSource', frame: m.frame, reason }] : [];
    }
    case 'export':
      await host.exportShown?.(session);
      return [];
    case 'compareRanges':
      await host.compareRanges?.(m.before, m.after);
      return [];
    case 'metric':
      host.metric?.(m.name, m.ms);
      return [];
    case 'accessibleView': {
      const title = accessibleTitle(session);
      const text = accessibleText(session, m.tree);
      if (!host.showText) return [{ type: 'accessibleText', title, text }];
      await host.showText(title, text);
      return [];
    }
    default:
      throw new Error(unhandledMessage(m));
  }
}
