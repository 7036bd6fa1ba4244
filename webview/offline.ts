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

/** The embedded profile with its timeline; without one when the page cannot inflate it (the Timeline then says so). */
async function restore(data: EmbeddedProfile): Promise<Profile> {
  const profile = restoreProfile(data);
  if (!data.timeline) return profile;
  try {
    const timeline = await readEmbeddedTimeline(data.timeline, profile.tree.count);
    return timeline.times.length ? { ...profile, timeline } : profile;
  } catch (e) {
    console.warn(`node-flame: the embedded timeline could not be read: ${(e as Error).message}`);
    return profile;
  }
}

function localHost(data: EmbeddedProfile): Api {
  let state: PersistedState | undefined;
  // Answers come later, as the host's would: the page may still be setting up when it asks.
  const send = (m: HostMessage | undefined) => {
    if (m) setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: m })), 0);
  };
  // The timeline inflates asynchronously: messages wait for it, in the order they came.
  let queue = restore(data).then((profile) => {
    const session = new ViewerSession(profile, data.label, data.path, data.options);
    session.findings = data.findings;
    return session;
  });
  const note = data.timeline?.note;
  const answer = (session: ViewerSession, m: ViewerMessage) => {
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
      queue = queue.then((session) => {
        try {
          answer(session, m);
        } catch (e) {
          send({ type: 'error', message: (e as Error).message });
        }
        return session;
      });
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
