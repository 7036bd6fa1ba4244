import * as vscode from 'vscode';
import { basename, join } from 'node:path';
import { ImportWorker } from '../../core/workerClient';
import type { OpenedRun } from '../../launch/run/runFolder';
import { NOTHING_NEW } from '../../launch/run/cpuChunks';
import type { LoadedProfile, ReservedPanel, Services } from '../services';

/**
 * How often the live view looks for the run's new chunks (ms, from the end of one read to the start of the next):
 * twice a chunk, so a chunk shows within half a second of being written; a read that finds none answers at once.
 */
const LIVE_READ_MS = 500;
/** CodeLens and line heat follow the live profile this often: each refresh redraws every visible editor's lenses. */
const LIVE_EDITOR_MS = 5000;

/**
 * A live run in its reserved panel: about once a second the run's chunks so far are read in an import worker that
 * lives as long as the run (it reads only what was added since), and the panel shows them; the editor's hot spots
 * follow at a calmer rate. `stop` ends the reads before the final profile takes the panel, `forget` after.
 */
export function watchLiveRun(
  s: Services,
  runDir: string,
  reserved: ReservedPanel,
  controls: { stop(): void; mark(label?: string): void },
): { stop(): Promise<void>; forget(): void; updates(): number } {
  const worker = new ImportWorker(join(__dirname, 'worker.js'), vscode.l10n.bundle);
  let shown: LoadedProfile | undefined;
  let stopped = false;
  let updates = 0;
  let editorAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const stale: string[] = [];
  const forgetStale = () => {
    for (const id of stale.splice(0))
      if (s.store.active?.id === id) stale.push(id);
      else s.store.remove(id);
  };
  const label = basename(runDir);
  const read = async (): Promise<void> => {
    try {
      const t0 = Date.now();
      const { profile, extra } = await worker.loadResult(runDir, { live: true, sourceMaps: false, untrusted: !vscode.workspace.isTrusted });
      if (stopped) return;
      const run = extra as OpenedRun | undefined;
      const previous = shown;
      shown = s.store.add(profile, runDir, { label, runDir, live: true, ...(run ? { run } : {}) });
      if (!(await reserved.live!(shown, controls))) return void (stopped = true);
      updates++;
      if (previous) stale.push(previous.id);
      // The editor's lenses and heat follow only every few seconds (each switch redraws them): the live profile they
      // show stays in the store until then, and is never removed while active (that would blank them once).
      const active = s.store.active?.id;
      if (active !== undefined && stale.includes(active) && Date.now() - editorAt >= LIVE_EDITOR_MS) {
        editorAt = Date.now();
        s.store.setActive(shown);
      }
      forgetStale();
      s.log.trace(`live ${label}: update ${updates} in ${Date.now() - t0} ms, ${profile.tree.total[0]} samples`);
    } catch (e) {
      // no chunk yet (the app is starting), or a read that failed: the next second tries again
      if (!(e as Error).message.includes(NOTHING_NEW)) s.log.warn(`live ${label}: ${(e as Error).message}`);
    }
  };
  const loop = async (): Promise<void> => {
    if (stopped) return;
    // No timer while a read is under way: coming back into sight then waits for the read's own next one.
    timer = undefined;
    const t0 = Date.now();
    await read();
    if (stopped) return;
    // Behind another tab the panel is redrawn only as often as the editor's lenses follow: the profiler's own work
    // competes with the app it measures (and with the user's typing) for the same cores.
    const wait = reserved.hidden?.() ? LIVE_EDITOR_MS : LIVE_READ_MS;
    // A long run's profile takes longer to read each time: the reads never take more than a third of a core.
    timer = setTimeout(() => void loop(), Math.max(wait, 2 * (Date.now() - t0)));
  };
  // Back in sight: the run so far at once, not at the end of the hidden pace's wait.
  const shownAgain = reserved.onShown?.(() => {
    if (stopped || timer === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => void loop(), 0);
  });
  timer = setTimeout(() => void loop(), LIVE_READ_MS);
  return {
    updates: () => updates,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      shownAgain?.dispose();
      await worker.terminate().catch(() => undefined);
    },
    /** After the final profile took the panel (and the editor): the live reads leave the store. */
    forget() {
      if (shown) stale.push(shown.id);
      forgetStale();
    },
  };
}
