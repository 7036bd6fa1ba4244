import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import * as l10n from '@vscode/l10n';
import { ProfileBuilder, ProfileError, type Profile } from '../../model';
import type { ImportOptions, Importer } from '../types';
import { IsolateLog } from './isolate';
import { forEachLine } from '../lines';
import { NativeResolver } from './native';
import { readProcMaps } from './procMaps';
import { parseLogName, procMapsBeside, siblingLogs } from './siblings';
import { TimelineBuilder } from './timeline';

const WORKER_SCRIPT = Buffer.from('node:internal/main/worker_thread');

/** Worker isolates compile Node's worker bootstrap script early; the main isolate never does. */
async function looksLikeWorker(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4 << 20);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).includes(WORKER_SCRIPT);
  } finally {
    await fh.close();
  }
}

/** Main isolate first, then workers in a stable order. */
async function orderLogs(paths: string[]): Promise<{ path: string; worker: boolean }[]> {
  const tagged = await Promise.all(paths.map(async (path) => ({ path, worker: paths.length > 1 && (await looksLikeWorker(path)) })));
  return tagged.sort((a, b) => Number(a.worker) - Number(b.worker) || a.path.localeCompare(b.path));
}

async function loadV8Log(path: string, opts: ImportOptions): Promise<Profile> {
  const logs = await orderLogs(await siblingLogs(path));
  const sizes = await Promise.all(logs.map(async (l) => (await stat(l.path)).size));
  const totalBytes = sizes.reduce((a, b) => a + b, 0) || 1;
  const builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof', source: path });
  const native = new NativeResolver(opts.signal, !opts.untrusted);
  const pid = parseLogName(path)?.pid;

  const mapsPath = opts.mapsFile ?? procMapsBeside(path);
  const maps = mapsPath ? await readProcMaps(mapsPath) : null;

  const threaded = logs.length > 1;
  const timeline = threaded ? undefined : new TimelineBuilder();
  let done = 0;
  let workerNo = 0;
  let mainDuration: number | null = null;
  let interval = 0;
  let recordsSeen = 0;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i];
    const thread = threaded ? (i === 0 && !log.worker ? 'main' : `worker ${++workerNo}`) : undefined;
    if (thread) builder.threadInfo(thread, { pid });
    const iso = new IsolateLog({ builder, native, thread, timeline });
    let mapsApplied = false;
    // The saved maps are applied once V8 listed its libraries, so known paths match.
    const seen = (line: string) => {
      if (maps && !mapsApplied && line.startsWith('shared-library-end')) {
        native.useProcMaps(maps);
        mapsApplied = true;
      }
    };
    const res = await forEachLine(
      log.path,
      (buf, start, end) => {
        recordsSeen++;
        return iso.lineAt(buf, start, end, seen);
      },
      { signal: opts.signal, lastLine: 'tail', onRead: (n) => opts.onProgress?.(Math.min(1, (done + n) / totalBytes)) },
    );
    if (maps && !mapsApplied) native.useProcMaps(maps);
    done += sizes[i];
    iso.finish();
    if (i === 0 && !iso.version) throw new ProfileError(l10n.t('not a V8 tick log: it does not start with a v8-version line'), log.path);
    if (thread) builder.threadInfo(thread, { samples: iso.samples });
    if (res.partialTail.trim()) {
      const kind = res.partialTail.split(',')[0].slice(0, 40);
      builder.warn(
        l10n.t('{0} ends in the middle of a "{1}" record (the log was cut off); that last line was skipped', basename(log.path), kind),
      );
    }
    for (const n of iso.notes(basename(log.path), maps !== null)) builder.warn(n);
    if (i === 0) {
      builder.meta.nodeVersion = iso.version ? `V8 ${iso.version}` : undefined;
      mainDuration = iso.samples > 1 ? (iso.maxTs - iso.minTs) / 1000 : null;
      interval = iso.intervalUs / 1000;
      // The wall-clock time of the timeline's 0 (the first tick), when the preload marked the log's clock.
      if (iso.clock && !isNaN(iso.firstTs)) builder.meta.startTime = iso.clock.epochMs + (iso.firstTs - iso.clock.ts) / 1000;
    }
  }
  for (const w of native.warnings) builder.warn(w);
  if (recordsSeen === 0) throw new ProfileError(l10n.t('the log is empty'), path);
  builder.meta.durationMs = mainDuration;
  builder.meta.intervalMs = interval || undefined;
  if (builder.tree.weight === 0)
    builder.warn(l10n.t('the log has no ticks: was node run with --prof, and did it run long enough to be sampled?'));
  const profile = builder.build();
  if (timeline && timeline.length) profile.timeline = timeline.finish();
  return profile;
}

export const v8logImporter: Importer = {
  format: 'v8log',
  sniff: (head) => head.subarray(0, 11).toString('latin1') === 'v8-version,',
  load: loadV8Log,
};
