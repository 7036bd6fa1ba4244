import { join } from 'node:path';
import type * as Inspector from 'node:inspector';
import type * as V8 from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';
import { writeOnceAtEnd } from './signals';
import { dropOwnCalls, HeapPositions, type SamplingProfile } from './heapPositions';
import { NOT_PROFILED_NO_INSPECTOR, recordNotProfiled, RUN_DIR_ENV } from '../run/processRecords';
import { streamJson } from '../../core/jsonStream';
import { createNewFileSyncFrom, replaceFileSync } from '../../core/safeWrite';
import { LIVE_ENV } from '../run/cpuChunks';
import { liveHeapFileName, nextHeapCopyAt } from '../run/liveHeapFile';
import { runIsLive } from '../run/runLiveness';
import { SETTING_LIMITS } from '../../core/settingLimits';
import { HEAP_NOTE_KEY, type HeapProfileNote } from '../../core/importers/heapprofile';

/** Set by the launcher for a run in heap mode: `<sampling interval in bytes>:<allocated|live>`. */
export const HEAP_PROF_ENV = 'NODE_FLAME_HEAP_PROF';

/** How often a live heap run's preload looks whether a copy is due. */
const LIVE_HEAP_MS = 1000;

export const DEFAULT_HEAP_INTERVAL = SETTING_LIMITS.heapSamplingInterval.fallback;

export type HeapSamples = HeapProfileNote['samples'];

export function heapProfEnvValue(interval: number | undefined, samples: HeapSamples | undefined): string {
  const i = interval && interval > 0 ? Math.round(interval) : DEFAULT_HEAP_INTERVAL;
  return `${i}:${samples === 'live' ? 'live' : 'allocated'}`;
}

export function parseHeapProfEnv(v: string | undefined): { interval: number; samples: HeapSamples } | undefined {
  const m = /^(\d+):(allocated|live)$/.exec(v ?? '');
  return m && Number(m[1]) > 0 ? { interval: Number(m[1]), samples: m[2] as HeapSamples } : undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Heap mode: V8's sampling heap profiler in this process (and in each worker thread, which has a heap of
 * its own) over an in-process inspector session, written at exit as
 * `Heap.<date>.<time>.<pid>.<threadId>.001.heapprofile` (the name `--heap-prof` gives). V8 marks no
 * sample as collected or live, so one run holds one of the two: `allocated` keeps the samples of
 * objects the GC took (what the code allocated), `live` drops them and runs a full GC before the
 * profile is taken (what the code still holds at exit; for a batch program whose data dies with its
 * main module, what it held when that module's code returned: see HeapPositions).
 */
export function heapProfileInProcess(): boolean {
  const dir = process.env[RUN_DIR_ENV];
  const opts = parseHeapProfEnv(process.env[HEAP_PROF_ENV]);
  if (!dir || !opts || process.execArgv.some((a) => a.startsWith('--heap-prof'))) return false;
  try {
    // V8's sampling heap profiler walks only the outermost function of optimized code: once TurboFan has
    // inlined a function into its caller, the bytes it allocates go to the caller (measured: a timer
    // callback's makeGarbage showed as listOnTimeout for 75% of a 25 s run). Without inlining each
    // function keeps its own bytes; the run is slower, which a memory profile does not measure.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('node:v8') as typeof V8).setFlagsFromString('--no-turbo-inlining');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Session } = require('node:inspector') as typeof Inspector;
    const session = new Session();
    session.connect();
    const keep = opts.samples === 'allocated';
    session.post('HeapProfiler.enable');
    session.post('HeapProfiler.startSampling', {
      samplingInterval: opts.interval,
      includeObjectsCollectedByMajorGC: keep,
      includeObjectsCollectedByMinorGC: keep,
    });
    const positions = new HeapPositions(session, !keep);
    const t = new Date();
    if (process.env[LIVE_ENV]) copyLive(session, dir, { samples: opts.samples, samplingInterval: opts.interval, startTime: t.getTime() });
    const name = `Heap.${t.getFullYear()}${pad(t.getMonth() + 1)}${pad(t.getDate())}.${pad(t.getHours())}${pad(t.getMinutes())}${pad(t.getSeconds())}.${process.pid}.${threadId}.001.heapprofile`;
    writeOnceAtEnd(() => {
      // In-process inspector calls answer synchronously, as an exit handler or a dying signal needs.
      if (!keep) session.post('HeapProfiler.collectGarbage');
      session.post('HeapProfiler.stopSampling', (err, r) => {
        if (err || !runIsLive(dir)) return;
        const note: HeapProfileNote = {
          samples: opts.samples,
          samplingInterval: opts.interval,
          startTime: t.getTime(),
          durationMs: Date.now() - t.getTime(),
        };
        const profile = positions.finish(r.profile as unknown as SamplingProfile);
        try {
          // In pieces: on a compiler the profile is ~85 MB of JSON, written while the app's memory is all still there.
          createNewFileSyncFrom(join(dir, name), (put) => streamJson({ ...profile, [HEAP_NOTE_KEY]: note }, put));
        } catch {
          // a full disk or a finished run's folder: the app's exit is not the place for a stack trace
        }
      });
    }, isMainThread);
    return true;
  } catch {
    // No inspector in this process (see NOT_PROFILED_NO_INSPECTOR): it goes unprofiled, the run goes on, and says why.
    if (isMainThread) recordNotProfiled(NOT_PROFILED_NO_INSPECTOR);
    return false;
  }
}

/**
 * A live heap run: the profile so far, copied about once a second into `live-heap-<pid>[-<threadId>].heapprofile`
 * (the newest replaces the last) for the live view, spaced by nextHeapCopyAt.
 */
function copyLive(session: Inspector.Session, dir: string, note: HeapProfileNote): void {
  let next = 0;
  const timer = setInterval(() => {
    if (performance.now() < next || !runIsLive(dir)) return;
    const t0 = performance.now();
    session.post('HeapProfiler.getSamplingProfile', (err, r) => {
      if (err) return;
      try {
        const live = { ...note, durationMs: Date.now() - (note.startTime ?? Date.now()) };
        dropOwnCalls(r.profile as unknown as SamplingProfile);
        replaceFileSync(join(dir, liveHeapFileName(process.pid, threadId)), JSON.stringify({ ...r.profile, [HEAP_NOTE_KEY]: live }));
      } catch {
        // a full disk: the live view keeps its last copy, the profile at exit is written as ever
      }
      next = nextHeapCopyAt(t0, performance.now());
    });
  }, LIVE_HEAP_MS);
  timer.unref();
}
