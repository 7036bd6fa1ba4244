import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CpuProfile } from './cpuprofile';
import type { AttachResult } from './session';
import type { InspectorTarget } from './endpoints';

const pad = (n: number) => String(n).padStart(2, '0');

/** `20240131-142501`, local time: run folders sort by when they were made. */
export function runStamp(d = new Date()): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
}

/** Creates `<base>/<stamp>-attach`, with `-2`, `-3`… when two runs start in the same second. */
export async function makeRunDir(base: string, suffix = 'attach', now = new Date()): Promise<string> {
  await mkdir(base, { recursive: true });
  const stem = join(base, `${runStamp(now)}-${suffix}`);
  for (let i = 1; ; i++) {
    const dir = i === 1 ? stem : `${stem}-${i}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i > 99) throw e;
    }
  }
}

export type StoppedBy = 'user' | 'duration' | 'load' | 'lost';

export interface AttachRunInfo {
  target: InspectorTarget & { pid?: number };
  stoppedBy: StoppedBy;
  samplingIntervalUs?: number;
  loadCommand?: string;
  loadExitCode?: number | null;
  /** Rewrites a script URL of the profiled process to a local path, or undefined to keep it. */
  mapPath?: (url: string) => string | undefined;
}

export interface SavedAttachRun {
  dir: string;
  profilePath: string;
  /** Remote → local for every script path that was rewritten. */
  mapped: Record<string, string>;
}

/**
 * Writes `profile.cpuprofile`, `sourcemaps.json` (script → sourceMapURL) and `run.json`. Remote
 * script paths are rewritten to local ones before saving, so the file opens right later too and
 * source maps next to the local scripts are found by the ordinary loader.
 */
export async function saveAttachRun(dir: string, result: AttachResult & { profile: CpuProfile }, info: AttachRunInfo): Promise<SavedAttachRun> {
  const mapped: Record<string, string> = {};
  const local = (url: string): string => {
    if (!info.mapPath || !url) return url;
    if (url in mapped) return pathToFileURL(mapped[url]).href;
    const to = info.mapPath(url);
    if (!to) return url;
    mapped[url] = to;
    return pathToFileURL(to).href;
  };
  const profile: CpuProfile = {
    ...result.profile,
    nodes: result.profile.nodes.map((n) => ({ ...n, callFrame: { ...n.callFrame, url: local(n.callFrame.url) } })),
  };
  const sourceMaps: Record<string, string> = {};
  for (const [url, map] of Object.entries(result.sourceMaps)) sourceMaps[local(url)] = map;

  const profilePath = join(dir, 'profile.cpuprofile');
  await writeFile(profilePath, JSON.stringify(profile));
  await writeFile(join(dir, 'sourcemaps.json'), JSON.stringify(sourceMaps));
  // Same shape as the launcher's run.json where the fields mean the same, so run history lists it alike.
  const run = {
    version: 1,
    mode: 'attach',
    command: ['attach', info.target.address, info.target.title].filter(Boolean),
    profiles: ['profile.cpuprofile'],
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
  };
  await writeFile(join(dir, 'run.json'), JSON.stringify(run, null, 2));
  return { dir, profilePath, mapped };
}
