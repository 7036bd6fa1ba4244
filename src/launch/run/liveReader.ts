import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { asCpuProfile, cpuProfileToModel } from '../../core/importers/cpuprofile';
import { ProfileError, type Profile } from '../../core/model';
import { addChunkLines, LIVE_INFO_FILE, liveChunkPid, NOTHING_NEW, type LiveInfo } from './cpuChunks';
import { CpuProfileMerger } from './cpuProfileMerge';
import { forgetLiveHeap, loadLiveHeap } from './liveHeap';
import { ATTACH_HEAP_MODE } from './liveHeapFile';
import { profilePid, readProcessRecords } from './processRecords';
import { V8LogTail } from '../../core/importers/v8log/tail';
import { PerfSlices } from '../../core/importers/perf/slices';
import { liveRun } from './liveRun';
import { liveJitMaps } from './liveJitMaps';
import { loadRunProfile, oneLogPerProcess, type RunLoadOptions } from './runProfile';
import { findRawProfiles, isPerfSliceScript, type OpenedRun } from './runFolder';

/** No more than this much of a chunk file is read at once (a repository-controlled folder may hold anything). */
const MAX_READ = 64 * 1024 * 1024;

interface Tail {
  offset: number;
  rest: string;
  merger: CpuProfileMerger;
}

/** What has been read of each live run, by folder: each read reads only the chunks added since the last. */
const runs = new Map<string, Map<string, Tail>>();
/** Bytes of chunks read of each run when it was last answered: a read that finds nothing new says so. */
const answered = new Map<string, number>();

/** Reads the bytes of a regular file (never through a symlink) from `offset`, at most MAX_READ. */
function readFrom(path: string, offset: number): { text: string; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const want = Math.min(MAX_READ, Math.max(0, st.size - offset));
    const buf = Buffer.alloc(want);
    const n = want ? readSync(fd, buf, 0, want, offset) : 0;
    return { text: buf.toString('utf8', 0, n), size: st.size };
  } finally {
    closeSync(fd);
  }
}

function readLiveInfo(dir: string): Partial<LiveInfo> {
  const r = readFrom(join(dir, LIVE_INFO_FILE), 0);
  try {
    const j = r && (JSON.parse(r.text) as Partial<LiveInfo>);
    if (!j || typeof j !== 'object') return {};
    return {
      mode: typeof j.mode === 'string' ? j.mode : undefined,
      startedAt: typeof j.startedAt === 'string' ? j.startedAt : undefined,
      events: Array.isArray(j.events)
        ? j.events.filter((e) => e && typeof e.at === 'string' && /^(port|loadStart|loadEnd|stop|mark)$/.test(e.kind))
        : undefined,
    };
  } catch {
    return {};
  }
}

/** The chunks of each process of a live run so far, merged per process (read incrementally). */
export function liveChunks(dir: string): Map<string, CpuProfileMerger> {
  let tails = runs.get(dir);
  if (!tails) runs.set(dir, (tails = new Map()));
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => liveChunkPid(n) !== undefined);
  } catch {
    // the run folder went away
  }
  for (const name of names) {
    let t = tails.get(name);
    if (!t) tails.set(name, (t = { offset: 0, rest: '', merger: new CpuProfileMerger() }));
    const r = readFrom(join(dir, name), t.offset);
    if (!r) continue;
    if (r.size < t.offset) {
      // rewritten from the start (never by the preload): read again
      tails.set(name, (t = { offset: 0, rest: '', merger: new CpuProfileMerger() }));
      continue;
    }
    t.offset += Buffer.byteLength(r.text);
    const text = t.rest + r.text;
    t.rest = text.slice(addChunkLines(t.merger, text));
  }
  return new Map([...tails].filter(([, t]) => t.merger.sampleCount > 0).map(([name, t]) => [name, t.merger]));
}

/** Forgets a run's chunks read so far (the run ended). */
export function forgetLiveRun(dir: string): void {
  runs.delete(dir);
  answered.delete(dir);
  profTails.delete(dir);
  perfRuns.delete(dir);
  forgetLiveHeap(dir);
}

/**
 * A live run as one profile, every process that has written a chunk included, on the run's time axis, with the
 * run as the launcher has told it so far (start, events) for the Timeline's markers.
 */
export async function loadLiveRun(
  dir: string,
  opts: RunLoadOptions & { onlyNew?: boolean } = {},
): Promise<{ profile: Profile; run: OpenedRun }> {
  const li = readLiveInfo(dir);
  if (li.mode === 'prof' || li.mode === 'perf') return loadLiveLogs(dir, li, opts, li.mode);
  if (li.mode === 'heap' || li.mode === ATTACH_HEAP_MODE) return loadLiveHeap(dir, li, opts);
  const chunks = liveChunks(dir);
  const read = [...(runs.get(dir)?.values() ?? [])].reduce((n, t) => n + t.offset, 0);
  if (!chunks.size || (opts.onlyNew && answered.get(dir) === read)) throw new ProfileError(NOTHING_NEW, dir);
  answered.set(dir, read);
  const files = [...chunks.keys()];
  const run = liveRun(dir, li, 'cpu-prof');
  const readPart = (file: string): Profile => cpuProfileToModel(asCpuProfile(chunks.get(file)!.profile(), file), join(dir, file));
  const profile = await loadRunProfile(run, { ...opts, liveParts: { files, pidOf: liveChunkPid, read: readPart } });
  return { profile, run };
}

/** Each live prof run's logs, read on from where the last read stopped (v8log/tail.ts). */
const profTails = new Map<string, Map<string, V8LogTail>>();
/** Each live perf run's ended slices, each parsed once, in order. */
const perfRuns = new Map<string, { slices: PerfSlices; done: string[] }>();

/**
 * A live prof run: V8 writes each process's tick log as it goes (measured: the ticks of a busy process grow
 * second by second); each read feeds only the lines added since the last to the readers kept for the run, and
 * answers what a whole read of the logs as they are would. A live perf run: the `perf script` of each slice ended
 * so far (launch/perfSlices.ts), each parsed once when it appears, named from the code records known then.
 */
async function loadLiveLogs(
  dir: string,
  li: Partial<LiveInfo>,
  opts: RunLoadOptions & { onlyNew?: boolean },
  mode: 'prof' | 'perf',
): Promise<{ profile: Profile; run: OpenedRun }> {
  // perf's slice in progress (perf.data) is never read live: only the ended slices' scripts.
  const logs = findRawProfiles(dir, mode).filter((f) => mode === 'prof' || isPerfSliceScript(basename(f)));
  let size = 0;
  for (const f of logs)
    try {
      size += statSync(f).size;
    } catch {
      // gone meanwhile
    }
  if (!logs.length || (opts.onlyNew && answered.get(dir) === size)) throw new ProfileError(NOTHING_NEW, dir);
  answered.set(dir, size);
  const run = liveRun(dir, li, mode);
  if (mode === 'perf') return { profile: await loadRunProfile(run, { ...opts, perfSlices: await liveSlices(dir, logs, opts) }), run };
  let tails = profTails.get(dir);
  if (!tails) profTails.set(dir, (tails = new Map()));
  const parts = new Map<string, Profile>();
  for (const f of oneLogPerProcess(logs)) {
    let t = tails.get(f);
    if (!t) tails.set(f, (t = new V8LogTail(f)));
    try {
      parts.set(f, await t.read(opts));
    } catch (e) {
      // Read again from the start next time: a read that failed midway may have left its readers half fed.
      tails.delete(f);
      throw e;
    }
  }
  const read = (f: string): Profile => parts.get(f)!;
  return { profile: await loadRunProfile(run, { ...opts, liveParts: { files: logs, pidOf: profilePid, read } }), run };
}

/** The live perf run's slices so far: those not parsed yet are parsed, in order, and kept. */
async function liveSlices(dir: string, slices: string[], opts: RunLoadOptions): Promise<Profile> {
  let st = perfRuns.get(dir);
  const fresh = slices.filter((f) => !st?.done.includes(f));
  // The slices' names sort in time: one sorting before one already read means the folder changed under the run.
  if (!st || (st.done.length && fresh.some((f) => f < st!.done[st!.done.length - 1]))) {
    perfRuns.set(dir, (st = { slices: new PerfSlices(), done: [] }));
    fresh.splice(0, fresh.length, ...slices);
  }
  if (fresh.length) {
    const jit = await liveJitMaps(readProcessRecords(dir));
    try {
      for (const f of fresh) {
        await st.slices.add(f, jit, opts);
        st.done.push(f);
      }
    } catch (e) {
      perfRuns.delete(dir);
      throw e;
    }
  }
  return st.slices.current();
}
