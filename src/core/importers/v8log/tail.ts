import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import * as l10n from '@vscode/l10n';
import { oneLine, ProfileBuilder, ProfileError, type Profile } from '../../model';
import type { ImportOptions } from '../types';
import { afterImport } from '../index';
import { splitLines } from '../lines';
import { IsolateLog } from './isolate';
import { NativeResolver } from './native';
import { readProcMaps, type Mapping } from './procMaps';
import { parseLogName, procMapsBeside, siblingLogs } from './siblings';
import { TimelineBuilder } from './timeline';

const WORKER_SCRIPT = Buffer.from('node:internal/main/worker_thread');
/** As index.ts looks for a worker's bootstrap script: in a log's first 4 MiB. */
const WORKER_SCAN = 4 << 20;
/** New bytes are read this much at a time: a read holds no more of a log than this and the line it ends in. */
const STEP = 4 << 20;

interface LogState {
  path: string;
  worker: boolean;
  /** Its thread's name when the process has several isolates' logs. */
  thread: string | undefined;
  iso: IsolateLog;
  /** Bytes of the file read so far, and those of them after the last line break (a line V8 is still writing). */
  offset: number;
  rest: Buffer | undefined;
  mapsApplied: boolean;
  records: number;
}

function openRegular(path: string): number | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    if (fstatSync(fd).isFile()) return fd;
    closeSync(fd);
  } catch {
    // gone, or not a file
  }
  return undefined;
}

function headHas(path: string, offset: number, head: Buffer): boolean {
  return offset < WORKER_SCAN && head.includes(WORKER_SCRIPT);
}

/**
 * A tick log read while V8 writes it (a live prof run): each `read` feeds the lines appended since the last one
 * to the same isolate readers that loadV8Log uses, and answers the profile of every line so far as loadV8Log
 * would answer it for the file as it is (its cut-off last line left for the next read). What is kept is the
 * readers' model (code map, stacks, samples), never the bytes read.
 */
export class V8LogTail {
  private logs: LogState[] = [];
  private key = '';
  private builder!: ProfileBuilder;
  private native!: NativeResolver;
  private timeline: TimelineBuilder | undefined;
  private maps: Mapping[] | null = null;

  private opts: ImportOptions = {};

  constructor(readonly path: string) {}

  /** The profile of the log (and its process's other isolates' logs) as written so far. */
  async read(opts: ImportOptions = {}): Promise<Profile> {
    this.opts = opts;
    const paths = await siblingLogs(this.path);
    for (let again = false; ; again = true) {
      // Another isolate's log, or a log rewritten from the start: read from the start, in loadV8Log's order.
      if (again || paths.join('\0') !== this.key) await this.start(paths);
      let fine = true;
      for (const log of this.logs) if (!(fine = await this.feed(log))) break;
      if (fine || again) break;
    }
    return this.snapshot();
  }

  private async start(paths: string[]): Promise<void> {
    const head = (p: string): boolean => {
      const fd = openRegular(p);
      if (fd === undefined) return false;
      try {
        const buf = Buffer.alloc(WORKER_SCAN);
        return headHas(p, 0, buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)));
      } finally {
        closeSync(fd);
      }
    };
    const tagged = paths.map((path) => ({ path, worker: paths.length > 1 && head(path) }));
    tagged.sort((a, b) => Number(a.worker) - Number(b.worker) || a.path.localeCompare(b.path));
    this.key = paths.join('\0');
    this.builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof', source: this.path });
    // No read's signal: the resolver outlives the read that made it.
    this.native = new NativeResolver(undefined, !this.opts.untrusted);
    const mapsPath = this.opts.mapsFile ?? procMapsBeside(this.path);
    this.maps = mapsPath ? await readProcMaps(mapsPath) : null;
    const threaded = tagged.length > 1;
    this.timeline = threaded ? undefined : new TimelineBuilder();
    const pid = parseLogName(this.path)?.pid;
    let workerNo = 0;
    this.logs = tagged.map((t, i) => {
      const thread = threaded ? (i === 0 && !t.worker ? 'main' : `worker ${++workerNo}`) : undefined;
      if (thread) this.builder.threadInfo(thread, { pid });
      const iso = new IsolateLog({ builder: this.builder, native: this.native, thread, timeline: this.timeline });
      return { path: t.path, worker: t.worker, thread, iso, offset: 0, rest: undefined, mapsApplied: false, records: 0 };
    });
  }

  /** Feeds a log's complete new lines; false when the log must be read again from the start. */
  private async feed(log: LogState): Promise<boolean> {
    const fd = openRegular(log.path);
    if (fd === undefined) return true;
    try {
      const size = fstatSync(fd).size;
      if (size < log.offset) return false;
      while (log.offset < size) {
        const kept = log.rest?.length ?? 0;
        const buf = Buffer.allocUnsafe(kept + Math.min(STEP, size - log.offset));
        log.rest?.copy(buf, 0);
        const n = readSync(fd, buf, kept, buf.length - kept, log.offset);
        if (n === 0) break;
        // A worker's log that showed no sign of it when the order was set now does: the order changes.
        if (this.logs.length > 1 && !log.worker && headHas(log.path, log.offset - kept, buf.subarray(0, kept + n))) return false;
        log.offset += n;
        const data = buf.subarray(0, kept + n);
        const pos = await this.lines(log, data);
        // Copied: the part left must not hold the whole buffer.
        log.rest = pos < data.length ? Buffer.from(data.subarray(pos)) : undefined;
      }
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** The log's lines in `data` to its reader, as loadV8Log reads them; answers where the unfinished line starts. */
  private lines(log: LogState, data: Buffer): Promise<number> {
    const seen = (line: string) => {
      if (this.maps && !log.mapsApplied && line.startsWith('shared-library-end')) {
        this.native.useProcMaps(this.maps);
        log.mapsApplied = true;
      }
    };
    return splitLines(data, false, 'tail', (buf, start, end) => {
      log.records++;
      return log.iso.lineAt(buf, start, end, seen);
    });
  }

  /** The profile so far, as loadV8Log builds it at the end of the logs, made of copies: the readers read on. */
  private async snapshot(): Promise<Profile> {
    const b = this.builder;
    const first = this.logs[0];
    if (!first || first.records === 0) throw new ProfileError(l10n.t('the log is empty'), this.path);
    if (!first.iso.version) throw new ProfileError(l10n.t('not a V8 tick log: it does not start with a v8-version line'), first.path);
    // Inference is redone over all calls seen at each read: its hits go to this read's copy, never to the builder.
    const inferred: [string, number, number][] = [];
    for (const log of this.logs) log.iso.finishSoFar((file, line, total) => inferred.push([file, line, total]));
    const lineHits = new Map([...b.lineHits].map(([file, m]) => [file, new Map([...m].map(([line, h]) => [line, { ...h }]))]));
    for (const [file, line, total] of inferred) {
      let m = lineHits.get(file);
      if (!m) lineHits.set(file, (m = new Map()));
      const h = m.get(line);
      if (h) h.total += total;
      else m.set(line, { self: 0, total });
    }
    const warnings = [...b.warnings];
    const seen = new Set(warnings);
    const warn = (w: string): void => {
      w = oneLine(w);
      if (!seen.has(w)) warnings.push(w);
      seen.add(w);
    };
    for (const log of this.logs) {
      if (log.thread) b.threadInfo(log.thread, { samples: log.iso.samples });
      for (const n of log.iso.notes(basename(log.path), this.maps !== null)) warn(n);
    }
    for (const w of this.native.warnings) warn(w);
    const iso = first.iso;
    const meta = {
      ...b.meta,
      nodeVersion: iso.version ? `V8 ${iso.version}` : undefined,
      durationMs: iso.samples > 1 ? (iso.maxTs - iso.minTs) / 1000 : null,
      intervalMs: iso.intervalUs / 1000 || undefined,
      ...(iso.clock && !isNaN(iso.firstTs) ? { startTime: iso.clock.epochMs + (iso.firstTs - iso.clock.ts) / 1000 } : {}),
    };
    // The tree copied first: its totals are the copy's, never worked out on the builder's tree that grows on.
    const live = b.tree;
    const tree = live.rewrite((i, p, out) => out.child(p, live.frame[i]));
    if (tree.weight === 0) warn(l10n.t('the log has no ticks: was node run with --prof, and did it run long enough to be sampled?'));
    // build() names the one thread of a log read alone by its tree's weight: here the copy's.
    const built = this.logs.length > 1 ? b.build() : undefined;
    const profile: Profile = {
      format: b.format,
      meta,
      // The same node ids (a builder's nodes are distinct and made parents first), in a tree of this read's own.
      tree,
      frames: b.frames.frames.map((f) => ({ ...f, ...(f.generated ? { generated: { ...f.generated } } : {}) })),
      threads: built ? built.threads.map((t) => ({ ...t })) : [{ name: 'main', samples: tree.weight }],
      lineHits,
      warnings,
    };
    if (b.deopts.length) profile.deopts = b.deopts.map((d) => ({ ...d }));
    if (this.timeline && this.timeline.length) profile.timeline = this.timeline.finish();
    return afterImport(this.path, profile, this.opts);
  }
}
