import * as l10n from '@vscode/l10n';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CpuProfile } from '../run/cpuProfileMerge';
import type { AttachResult, SamplingHeapProfile } from './session';
import { HEAP_NOTE_KEY } from '../../core/importers/heapprofile';
import type { InspectorTarget } from './endpoints';
import { InspectorError } from './errors';
import { createNewFile } from '../../core/safeWrite';
import { createRunDir, RUN_JSON_VERSION, writeRunJson, type RunEvent, type StopReason } from '../run/runFolder';

/** A fresh `<base>/<stamp>-attach` run folder (see createRunDir). */
export async function makeRunDir(base: string, now = new Date()): Promise<string> {
  return createRunDir(base, 'attach', now);
}

export type StoppedBy = Extract<StopReason, 'user' | 'duration' | 'load' | 'lost'>;

export interface AttachRunInfo {
  target: InspectorTarget & { pid?: number };
  stoppedBy: StoppedBy;
  samplingIntervalUs?: number;
  loadCommand?: string;
  loadExitCode?: number | null;
  /** The marks the user dropped while it recorded live (the Timeline's markers). */
  events?: RunEvent[];
  /** Rewrites a script URL of the profiled process to a local path, or undefined to keep it. */
  mapPath?: (url: string) => string | undefined;
}

export interface SavedAttachRun {
  dir: string;
  profilePath: string;
  /** Remote → local for every script path that was rewritten. */
  mapped: Record<string, string>;
}

/** What a session that received a profile returns. */
export type ReceivedAttach = AttachResult & ({ profile: CpuProfile } | { heapProfile: SamplingHeapProfile });

/** The result with the profile it holds, for saving; when none came, why (the lost connection's words). */
export function receivedProfile(result: AttachResult): ReceivedAttach {
  if (result.profile) return { ...result, profile: result.profile };
  if (result.heapProfile) return { ...result, heapProfile: result.heapProfile };
  throw result.lost ?? new InspectorError('lost', l10n.t('No profile was received.'));
}

/**
 * Writes `profile.cpuprofile`, `sourcemaps.json` (script → sourceMapURL) and `run.json`. Remote
 * script paths are rewritten to local ones before saving, so the file opens right later too and
 * source maps next to the local scripts are found by the ordinary loader.
 */
export async function saveAttachRun(dir: string, result: ReceivedAttach, info: AttachRunInfo): Promise<SavedAttachRun> {
  const mapped: Record<string, string> = {};
  const local = (url: string): string => {
    if (!info.mapPath || !url) return url;
    if (url in mapped) return pathToFileURL(mapped[url]).href;
    const to = info.mapPath(url);
    if (!to) return url;
    mapped[url] = to;
    return pathToFileURL(to).href;
  };
  let name: string;
  let text: string;
  if (result.profile) {
    const cpu = result.profile;
    name = 'profile.cpuprofile';
    text = JSON.stringify({ ...cpu, nodes: cpu.nodes.map((n) => ({ ...n, callFrame: { ...n.callFrame, url: local(n.callFrame.url) } })) });
  } else {
    const heap = (result as { heapProfile: SamplingHeapProfile }).heapProfile;
    type HeapNode = SamplingHeapProfile['head'];
    // Iterative: the profiled app's deep recursion must not overflow this stack.
    const head: HeapNode = { ...heap.head, children: [] };
    const todo: [HeapNode, HeapNode][] = [[heap.head, head]];
    while (todo.length) {
      const [from, to] = todo.pop()!;
      to.callFrame = { ...from.callFrame, url: local(from.callFrame.url) };
      for (const c of from.children ?? []) {
        const copy: HeapNode = { ...c, children: [] };
        to.children.push(copy);
        todo.push([c, copy]);
      }
    }
    name = 'profile.heapprofile';
    text = JSON.stringify({ head, samples: heap.samples ?? [], ...(result.heapNote ? { [HEAP_NOTE_KEY]: result.heapNote } : {}) });
  }
  const sourceMaps: Record<string, string> = {};
  for (const [url, map] of Object.entries(result.sourceMaps)) sourceMaps[local(url)] = map;

  const profilePath = join(dir, name);
  // A fresh folder: each file is new, never written through a name already there.
  await createNewFile(profilePath, text);
  await createNewFile(join(dir, 'sourcemaps.json'), JSON.stringify(sourceMaps));
  await writeRunJson(dir, {
    version: RUN_JSON_VERSION,
    mode: 'attach',
    command: ['attach', info.target.address, info.target.title].filter(Boolean),
    profiles: [name],
    target: { address: info.target.address, title: info.target.title, url: info.target.url, pid: info.target.pid },
    nodeVersion: result.nodeVersion,
    startedAt: new Date(result.startedAt).toISOString(),
    durationMs: result.durationMs,
    samplingIntervalUs: info.samplingIntervalUs,
    samples: result.samples,
    parts: result.parts,
    stoppedBy: info.stoppedBy,
    lost: result.lost?.message,
    load: info.loadCommand ? { command: info.loadCommand, exitCode: info.loadExitCode ?? null } : undefined,
    sourceMaps: 'sourcemaps.json',
    pathMapping: mapped,
    ...(info.events?.length ? { events: info.events } : {}),
  });
  return { dir, profilePath, mapped };
}
