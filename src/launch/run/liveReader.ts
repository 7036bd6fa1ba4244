import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asCpuProfile, cpuProfileToModel } from '../../core/importers/cpuprofile';
import { ProfileError, type Profile } from '../../core/model';
import { addChunkLines, LIVE_INFO_FILE, liveChunkPid, NOTHING_NEW, type LiveInfo } from './cpuChunks';
import { CpuProfileMerger } from './cpuProfileMerge';
import { forgetLiveHeap, loadLiveHeap } from './liveHeap';
import { ATTACH_HEAP_MODE } from './liveHeapFile';
import { profilePid, readProcessRecords } from './processRecords';
import { V8LogTail } from '../../core/importers/v8log/tail';
import { PerfScriptStream } from '../../core/importers/perf/slices';
import { FramePointerCheck, mappedFiles } from '../../core/importers/perf/framePointers';
import { savedJitMaps } from '../../core/importers/perf/jitMaps';
import { liveRun } from './liveRun';
import { forgetLiveJitMaps, liveJitMaps } from './liveJitMaps';
import { loadRunProfile, oneLogPerProcess, runThreadLabel, type RunLoadOptions } from './runProfile';
import { findRawProfiles, PERF_STREAM_PART, type OpenedRun } from './runFolder';

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

/** The text of a regular file from `offset` (bytesFrom), and the file's size. */
function readFrom(path: string, offset: number): { text: string; size: number } | undefined {
  const r = bytesFrom(path, offset);
  return r && { text: r.bytes.toString('utf8'), size: r.size };
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
  perfRuns.get(dir)?.stream.check?.close();
  perfRuns.delete(dir);
  forgetLiveJitMaps(dir);
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
  if (li.mode === 'perf') return loadLivePerf(dir, li, opts);
  if (li.mode === 'prof') return loadLiveLogs(dir, li, opts);
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
/** Each live perf run's perf script text (perfStream.ts): its name while written and after, and what is parsed of it. */
const perfRuns = new Map<
  string,
  { part: string; final: string; offset: number; stream: PerfScriptStream; seen: { at: number; size: number }[] }
>();
/**
 * While the run goes on, text is parsed once it is this old: V8 writes its code records (the jitdump, /tmp/perf-<pid>.map)
 * through a 2 MB buffer, so the record of code that ran a moment ago may not be there yet, and a frame parsed then
 * stays unnamed (measured: 31 of 1145 samples of a program compiling all along marked ambiguous with no delay).
 */
const PERF_TEXT_AGE_MS = 1000;

/** The size of the file the text is parsed up to: what it held PERF_TEXT_AGE_MS ago (all of it once the run ended). */
function ripeSize(seen: { at: number; size: number }[], size: number, ended: boolean): number {
  const now = Date.now();
  seen.push({ at: now, size });
  if (ended) return size;
  while (seen.length > 1 && now - seen[1].at >= PERF_TEXT_AGE_MS) seen.shift();
  return now - seen[0].at >= PERF_TEXT_AGE_MS ? seen[0].size : 0;
}

/** Reads the bytes of a regular file (never through a symlink) from `offset`, at most MAX_READ, and its size. */
function bytesFrom(path: string, offset: number): { bytes: Buffer; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const buf = Buffer.allocUnsafe(Math.min(MAX_READ, Math.max(0, st.size - offset)));
    return { bytes: buf.subarray(0, buf.length ? readSync(fd, buf, 0, buf.length, offset) : 0), size: st.size };
  } finally {
    closeSync(fd);
  }
}

/**
 * The libraries a live perf run's processes have mapped (their /proc maps, and the node executable of each), as they
 * are now: perf mode puts `(caller not recorded)` where perf skipped the caller of code without a frame pointer.
 */
async function runningLibraries(dir: string): Promise<string[]> {
  const paths = new Set<string>();
  for (const r of readProcessRecords(dir)) {
    if (r.argv[0]?.startsWith('/')) paths.add(r.argv[0]);
    const maps = await readFile(`/proc/${r.pid}/maps`, 'latin1').catch(() => '');
    for (const p of mappedFiles(maps)) paths.add(p);
  }
  return [...paths];
}

/**
 * A live perf run: the one perf script of its recording writes its text as perf records (perfStream.ts); each read
 * parses only what was added since the last, its JIT frames named from the code records known then.
 */
async function loadLivePerf(
  dir: string,
  li: Partial<LiveInfo>,
  opts: RunLoadOptions & { onlyNew?: boolean },
): Promise<{ profile: Profile; run: OpenedRun }> {
  let st = perfRuns.get(dir);
  if (!st) {
    let part: string | undefined;
    try {
      part = readdirSync(dir).find((n) => PERF_STREAM_PART.test(n));
    } catch {
      // the run folder went away
    }
    if (!part) throw new ProfileError(NOTHING_NEW, dir);
    forgetLiveJitMaps(dir);
    st = {
      part: join(dir, part),
      final: join(dir, part.slice(0, -'.part'.length)),
      offset: 0,
      stream: new PerfScriptStream(FramePointerCheck.empty()),
      seen: [],
    };
    perfRuns.set(dir, st);
  }
  // Renamed into place once perf script ended: the same text, read on.
  const part = bytesFrom(st.part, st.offset)?.bytes;
  const all = part ?? bytesFrom(st.final, st.offset)?.bytes;
  const fresh = all?.subarray(0, Math.max(0, ripeSize(st.seen, st.offset + all.length, !part) - st.offset));
  if (fresh?.length) {
    // Once the run ended its processes' code records are in the run folder (and gone from /tmp and their cwd, or
    // about to go): those, whole, name the rest.
    const live = await liveJitMaps(readProcessRecords(dir), dir);
    if (part) await st.stream.check?.extend({ mapped: { paths: await runningLibraries(dir), madeAt: Date.now() } });
    const jit = part ? live : new Map([...live, ...(await savedJitMaps(dir))]);
    st.stream.push(fresh, jit);
    st.offset += fresh.length;
  }
  if (!st.stream.parser.samples || (opts.onlyNew && answered.get(dir) === st.offset)) throw new ProfileError(NOTHING_NEW, dir);
  answered.set(dir, st.offset);
  const run = liveRun(dir, li, 'perf');
  st.stream.parser.threadLabel = runThreadLabel(run.info.processes ?? []);
  return { profile: await loadRunProfile(run, { ...opts, perfSlices: st.stream.current() }), run };
}

/**
 * A live prof run: V8 writes each process's tick log as it goes (measured: the ticks of a busy process grow
 * second by second); each read feeds only the lines added since the last to the readers kept for the run, and
 * answers what a whole read of the logs as they are would.
 */
async function loadLiveLogs(
  dir: string,
  li: Partial<LiveInfo>,
  opts: RunLoadOptions & { onlyNew?: boolean },
): Promise<{ profile: Profile; run: OpenedRun }> {
  const mode = 'prof';
  const logs = findRawProfiles(dir, mode);
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
  let tails = profTails.get(dir);
  if (!tails) profTails.set(dir, (tails = new Map()));
  const parts = new Map<string, Profile>();
  const threadLabel = runThreadLabel(run.info.processes ?? []);
  for (const f of oneLogPerProcess(logs)) {
    let t = tails.get(f);
    if (!t) tails.set(f, (t = new V8LogTail(f)));
    try {
      parts.set(f, await t.read({ ...opts, threadLabel }));
    } catch (e) {
      // Read again from the start next time: a read that failed midway may have left its readers half fed.
      tails.delete(f);
      throw e;
    }
  }
  const read = (f: string): Profile => parts.get(f)!;
  return { profile: await loadRunProfile(run, { ...opts, liveParts: { files: logs, pidOf: profilePid, read } }), run };
}
