// The offline HTML export: no VS Code host, so the page answers its own messages from the profile
// embedded in it. Loaded before main.ts runs; does nothing inside VS Code.
import { unhandledMessage, type HostMessage, type PersistedState, type ViewerMessage } from '../src/core/viewer/protocol';
import { restoreProfile, type EmbeddedProfile } from '../src/core/viewer/embed';
import { readEmbeddedTimeline } from '../src/core/viewer/embedTimeline';
import type { Profile } from '../src/core/model';
import { ViewerSession } from '../src/core/viewer/session';
import { timelineData } from '../src/core/viewer/timeline';

interface Api {
  postMessage(m: ViewerMessage): void;
  getState(): PersistedState | undefined;
  setState(s: PersistedState): void;
}

declare global {
  var acquireVsCodeApi: (() => Api) | undefined;
}

/**
 * Puts the embedded timeline on the restored profile once inflated; leaves it without one when the page cannot
 * read it (the Timeline then says the profile has no times).
 */
async function attachTimeline(profile: Profile, data: EmbeddedProfile): Promise<void> {
  if (!data.timeline) return;
  try {
    const timeline = await readEmbeddedTimeline(data.timeline, profile.tree.count);
    if (timeline.times.length) profile.timeline = timeline;
  } catch (e) {
    console.warn(`node-flame: the embedded timeline could not be read: ${(e as Error).message}`);
  }
}

/** What reads the timeline: the Timeline itself, a range among the transforms, the process picker's threads. */
const needsTimeline = (m: ViewerMessage) => m.type === 'timeline' || m.type === 'transforms' || m.type === 'threads';

function localHost(data: EmbeddedProfile): Api {
  let state: PersistedState | undefined;
  // Answers come later, as the host's would: the page may still be setting up when it asks.
  const send = (m: HostMessage | undefined) => {
    if (m) setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: m })), 0);
  };
  const profile = restoreProfile(data);
  const session = new ViewerSession(profile, data.label, data.path, data.options);
  session.findings = data.findings;
  // The flame graph does not wait for the timeline (a million samples take some 100 ms to inflate): it inflates
  // when the page is idle or when a message reads it, and that message waits, with every message after it, so
  // they keep their order. Until then nothing has derived a profile from this one (no threads picked, no
  // transforms), so setting it on this one is enough.
  let inflating: Promise<void> | undefined;
  const inflate = () => (inflating ??= attachTimeline(profile, data));
  if (data.timeline && typeof requestIdleCallback === 'function') requestIdleCallback(() => void inflate(), { timeout: 3000 });
  let waiting = false;
  const note = data.timeline?.note;
  const answer = (m: ViewerMessage) => {
    switch (m.type) {
      case 'ready':
        session.opening(data.strings, { offline: true }).forEach(send);
        return;
      case 'options':
        session.setOptions(m.options).forEach(send);
        return;
      case 'transforms':
        session.setTransforms(m.transforms).forEach(send);
        return;
      case 'threads':
        session.setThreads(m.threads ?? undefined).forEach(send);
        return;
      case 'sandwich':
        send(session.sandwich(m.fn));
        return;
      case 'sandwichExpand':
        send(session.sandwichExpand(m));
        return;
      case 'needTree':
        send(session.tree(m.tree));
        return;
      case 'expand':
        send(session.expand(m));
        return;
      case 'search':
        send(session.search(m.tree, m.term, m.regex));
        return;
      case 'reveal':
        send(session.reveal(m.frame));
        return;
      case 'timeline':
        // The run's markers and tracks go with the whole profile's overview, as the editor's host sends them.
        send({ ...timelineData(session.pickedProfile(), m, (m.overview && data.timeFacts) || {}), ...(note ? { note } : {}) });
        return;
      case 'open': {
        // No editor here: say where the code is instead.
        const f = m.raw ? session.profile.frames[m.frame] : session.frame(m.frame);
        const where = f?.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '';
        send({ type: 'noSource', frame: m.frame, reason: where ? `${data.strings.offline} ${where}` : data.strings.offline });
        return;
      }
      // No host here: nothing records a run, writes a file, reads another sample type or keeps metrics.
      case 'stopRun':
      case 'compareRanges':
      case 'export':
      case 'sampleType':
      case 'metric':
        return;
      default:
        console.warn(unhandledMessage(m));
    }
  };
  return {
    postMessage: (m) => {
      const run = () => {
        try {
          answer(m);
        } catch (e) {
          send({ type: 'error', message: (e as Error).message });
        }
      };
      if (data.timeline && (waiting || needsTimeline(m))) {
        waiting = true;
        inflating = inflate().then(run);
      } else run();
    },
    getState: () => state,
    setState: (s) => {
      state = s;
    },
  };
}

const el = typeof document !== 'undefined' ? document.getElementById('node-flame-data') : null;
if (typeof globalThis.acquireVsCodeApi !== 'function' && el) {
  const api = localHost(JSON.parse(el.textContent ?? '') as EmbeddedProfile);
  globalThis.acquireVsCodeApi = () => api;
}
