import { join } from 'node:path';
import { replaceFileSync } from '../../core/safeWrite';
import type { CpuProfile, CpuProfileMerger } from './cpuProfileMerge';

/**
 * The live CPU profile of a process: the preload stops and restarts its in-process profile about once a second
 * and appends each piece (a chunk: V8's own `.cpuprofile` of that second) as one line of `live-<pid>.jsonl`.
 * The one merge of chunks (cpuProfileMerge.ts) is used by the preload for the process's final `.cpuprofile` and by
 * the reader of a live run alike, so the profile at exit is exactly the union of the chunks the viewer showed.
 */

/** `live-<pid>.jsonl`: one chunk per line, `{"profile": <a .cpuprofile of about a second>}`. */
export function liveChunkFileName(pid: number): string {
  return `live-${pid}.jsonl`;
}

export function liveChunkPid(name: string): number | undefined {
  const m = /^live-(\d+)\.jsonl$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** `<run folder>/live.json`: what the launcher knows of a live run before run.json (its start, its events so far). */
export const LIVE_INFO_FILE = 'live.json';

export interface LiveInfo {
  /** The run's mode: a prof run is watched by reading its tick logs as they grow (V8 writes them as it goes). */
  mode?: string;
  startedAt: string;
  events: { kind: string; at: string; label?: string }[];
}

/** A live run's start and events so far, for the Timeline before run.json is there (liveReader.ts). */
export function writeLiveInfo(runDir: string, info: LiveInfo): void {
  try {
    replaceFileSync(join(runDir, LIVE_INFO_FILE), JSON.stringify(info));
  } catch {
    // a full disk: the live Timeline goes without its markers
  }
}

/** The live reader's word for "nothing since the last read" (and "nothing yet"): the caller keeps what it shows. */
export const NOTHING_NEW = 'no new live chunks';

/** Set by the launcher when the run is watched live (the preload then writes chunks). */
export const LIVE_ENV = 'NODE_FLAME_LIVE';

/** Reads the whole lines of `text` as chunks into `merger`; returns how many characters were whole lines (the rest waits). */
export function addChunkLines(merger: CpuProfileMerger, text: string): number {
  let at = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
    const line = text.slice(at, nl);
    at = nl + 1;
    try {
      const rec = JSON.parse(line) as { profile?: CpuProfile };
      if (rec.profile) merger.add(rec.profile);
    } catch {
      // a damaged line (a disk that filled mid-write): the chunks around it still count
    }
  }
  return at;
}
