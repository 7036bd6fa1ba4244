// Loaded on the first profile opened (see ProfileStore.load): the importers stay out of activation.
import * as vscode from 'vscode';
import type { Profile } from '../core/model';
import type { OpenedRun } from '../launch/run/runFolder';
import { loadInWorker } from './bigImport';
import { clampSetting } from '../core/settingLimits';
import { isLargeProfile } from './largeProfile';
import { workspacePathMapping, workspaceSourceMapOptions } from './pathMapper';

/**
 * Every import runs in a worker, whatever the file's size: a file's content must never be able to freeze
 * the extension host. Big files show a cancellable % notification; an import whose worker is stuck (no
 * heartbeat: a parse that never yields) for `nodeFlame.importTimeoutSeconds` is stopped; a slow one that
 * waits on tools (nm for hundreds of libraries) goes on. In an untrusted workspace no outside tool (nm, perf) runs.
 */
export async function readProfile(
  path: string,
  sampleType?: string,
  marks?: Record<string, number>,
): Promise<{ profile: Profile; run?: OpenedRun }> {
  // A run folder of a command (every process's profile, merged) is read in the worker too.
  // Held to 5…3600 s: a repository's settings can neither turn the watchdog off nor overflow its timer.
  const seconds = clampSetting('importTimeoutSeconds', vscode.workspace.getConfiguration('nodeFlame').get('importTimeoutSeconds'));
  if (marks) marks.readStart = Date.now();
  const { profile, extra, ms, receivedAt } = await loadInWorker(path, {
    notify: await isLargeProfile(path),
    idleTimeoutMs: seconds * 1000,
    untrusted: !vscode.workspace.isTrusted,
    sampleType,
    // A pprof comes from a server or a container (Pyroscope, Datadog): its paths are theirs, mapped like attach's,
    // in the worker before its source maps are looked for (once, with the sources placed through the same mapping).
    mapping: { pathMapping: workspacePathMapping(), pathMappingFormats: ['pprof'], sourceMapOptions: workspaceSourceMapOptions() },
  });
  // Where a big file's start-up goes (the e2e benchmark prints them): the worker's boot, its read, the unpacking here.
  if (marks && ms !== undefined && receivedAt !== undefined)
    Object.assign(marks, { workerRead: receivedAt - ms, workerDone: receivedAt, unpacked: Date.now() });
  // The run the worker read (launch/openPath): the host keeps it rather than reading run.json again.
  return { profile, run: extra as OpenedRun | undefined };
}
