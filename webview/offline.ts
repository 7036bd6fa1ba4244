// The offline HTML export: no VS Code host, so the page answers its own messages from the profile
// embedded in it, with the editor's own answer (core/viewer/answer). Loaded before main.ts runs; does nothing
// inside VS Code.
import type { HostMessage, PersistedState, ViewerMessage } from '../src/core/viewer/protocol';
import type { EmbeddedProfile } from '../src/core/viewer/embed';
import { answer } from '../src/core/viewer/answer';
import { offlineViewer } from '../src/core/viewer/offlineHost';

interface Api {
  postMessage(m: ViewerMessage): void;
  getState(): PersistedState | undefined;
  setState(s: PersistedState): void;
}

declare global {
  var acquireVsCodeApi: (() => Api) | undefined;
}

/**
 * What derives profiles from the timeline: the Timeline itself, a range, the transforms and the process picker (a
 * derived profile keeps the samples' times only if they are there when it is made); the Requests tab and its routes;
 * and the page's opening when it opens with a view exported with it (a range, transforms, processes or routes).
 */
const readsTimeline = (m: ViewerMessage, data: EmbeddedProfile) =>
  m.type === 'timeline' ||
  m.type === 'range' ||
  m.type === 'transforms' ||
  m.type === 'threads' ||
  // Requests label samples by their times (the page's requests come with its timeline).
  m.type === 'requests' ||
  m.type === 'routes' ||
  // The opening says whether there is a Requests tab: known once the requests are on the profile.
  (m.type === 'ready' && !!(data.range || data.transforms?.length || data.shownThreads || data.requests));

function localHost(data: EmbeddedProfile): Api {
  let state: PersistedState | undefined;
  // Answers come later, as the host's would: the page may still be setting up when it asks.
  const send = (m: HostMessage) => setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: m })), 0);
  const { session, host, inflate } = offlineViewer(data);
  // The flame graph does not wait for the timeline (a million samples take some 100 ms to inflate): it inflates
  // when the page is idle or when a message reads it, and that message waits, with every message after it, so
  // they keep their order. Until then nothing has derived a profile from this one (no threads picked, no
  // transforms, no range: a page exported with them waits from its opening), so setting it on this one is enough.
  if (data.timeline && typeof requestIdleCallback === 'function') requestIdleCallback(() => void inflate(), { timeout: 3000 });
  let waiting = false;
  let queue: Promise<void> = Promise.resolve();
  const run = async (m: ViewerMessage) => {
    try {
      // No host here: nothing records a run or reads another sample type.
      if (m.type === 'stopRun' || m.type === 'sampleType' || m.type === 'mark' || m.type === 'liveWindow') return;
      const replies = m.type === 'ready' ? session.opening(data.strings, { offline: true }) : await answer(session, m, host);
      replies.forEach(send);
    } catch (e) {
      send({ type: 'error', message: (e as Error).message });
    }
  };
  return {
    postMessage: (m) => {
      if (data.timeline && (waiting || readsTimeline(m, data))) {
        waiting = true;
        queue = queue.then(inflate).then(() => run(m));
      } else queue = queue.then(() => run(m));
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
