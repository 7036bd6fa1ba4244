import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNewFileSync, replaceFileSync } from '../../core/safeWrite';
import { CpuProfileMerger, type CpuProfile } from './cpuProfileMerge';

/**
 * The live CPU profile of a process: the preload stops and restarts its in-process profile about once a second
 * and appends each piece (a chunk: V8's own `.cpuprofile` of that second) as one line of `live-<pid>.jsonl`.
 * The one merge of chunks (cpuProfileMerge.ts) is used by the preload for the process's final `.cpuprofile` and by
 * the reader of a live run alike, so the profile at exit is exactly the union of the chunks the viewer showed.
 */

/**
 * `live-<pid>.jsonl` (a worker thread's: `live-<pid>-<threadId>.jsonl`): one chunk per line,
 * `{"profile": <a .cpuprofile of about a second>}`.
 */
export function liveChunkFileName(pid: number, threadId = 0): string {
  return threadId ? `live-${pid}-${threadId}.jsonl` : `live-${pid}.jsonl`;
}

const LIVE_NAME = /^live-(\d+)(?:-(\d+))?\.jsonl$/;

export function liveChunkPid(name: string): number | undefined {
  const m = LIVE_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The thread of a chunk file (0: the main thread). */
export function liveChunkThread(name: string): number {
  return Number(LIVE_NAME.exec(name)?.[2] ?? 0);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A thread's `.cpuprofile` named as `--cpu-prof` names it (CPU.<date>.<time>.<pid>.<threadId>.<seq>), so the run reads it as one. */
export function cpuProfileName(pid: number, threadId: number, t = new Date()): string {
  const date = `${t.getFullYear()}${pad(t.getMonth() + 1)}${pad(t.getDate())}`;
  return `CPU.${date}.${pad(t.getHours())}${pad(t.getMinutes())}${pad(t.getSeconds())}.${pid}.${threadId}.001.cpuprofile`;
}

/**
 * At the end of a live run: a thread whose chunks are there but whose profile is not gets the union of its chunks
 * as its profile. A worker thread that `worker.terminate()` ended never sees its exit (nor does a process that was
 * SIGKILLed), so its last piece, under a second, is all it loses. Answers the files written.
 */
export function profilesFromChunks(runDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runDir);
  } catch {
    return [];
  }
  const have = new Set(names.map((n) => /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(n)).map((m) => m && `${m[1]}.${m[2]}`));
  const written: string[] = [];
  for (const n of names) {
    const pid = liveChunkPid(n);
    const tid = liveChunkThread(n);
    if (pid === undefined || have.has(`${pid}.${tid}`)) continue;
    try {
      const merger = new CpuProfileMerger();
      addChunkLines(merger, readFileSync(join(runDir, n), 'utf8'));
      if (!merger.sampleCount) continue;
      const name = cpuProfileName(pid, tid);
      createNewFileSync(join(runDir, name), JSON.stringify(merger.profile()));
      written.push(name);
    } catch {
      // a full disk: this thread goes without its profile, as it would have
    }
  }
  return written;
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
