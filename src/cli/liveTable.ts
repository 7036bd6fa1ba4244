import { basename, join } from 'node:path';
import { ImportWorker } from '../core/workerClient';
import { cliBundle } from './locale';
import * as l10n from '@vscode/l10n';
import { functionStats, type Profile } from '../core/model';
import { lastSampleTime, restrictToRange } from '../core/model/timeline';
import { NOTHING_NEW } from '../launch/run/cpuChunks';
import { formatWeight } from '../core/model/units';

/** How often the table is redrawn (ms). */
const LIVE_TABLE_MS = 1000;
const ROWS = 10;

/** The heaviest functions by self time of a profile so far, as the rows of a compact table. */
export function liveRows(p: Profile, rows = ROWS): { name: string; where: string; self: number; total: number }[] {
  const all = p.tree.total[0] || 1;
  return functionStats(p.tree, p.frames.length)
    .filter((s) => s.self > 0 && p.frames[s.frame].category !== 'idle' && p.frames[s.frame].category !== 'program')
    .sort((a, b) => b.self - a.self)
    .slice(0, rows)
    .map((s) => {
      const f = p.frames[s.frame];
      return {
        name: f.name,
        where: f.file ? `${basename(f.file)}${f.line ? `:${f.line}` : ''}` : '',
        self: s.self / all,
        total: s.total / all,
      };
    });
}

function table(p: Profile, seconds: number, restarted: boolean): string[] {
  // perf weighs samples by their period: the count is in meta. A heap profile weighs bytes.
  const samples = p.meta.sampleCount ?? p.tree.total[0];
  let head =
    p.meta.unit === 'bytes'
      ? l10n.t('live · {0} s · {1} sampled · top functions by bytes allocated', seconds.toFixed(0), formatWeight(p.tree.total[0], 'bytes'))
      : l10n.t('live · {0} s · {1} samples · top functions by self time', seconds.toFixed(0), String(samples));
  if (restarted) head += ` · ${l10n.t('since the restart (r)')}`;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6);
  const lines = [head, `${l10n.t('self').padStart(6)} ${l10n.t('total').padStart(6)}  ${l10n.t('function')}`];
  for (const r of liveRows(p)) lines.push(`${pct(r.self)} ${pct(r.total)}  ${r.name.slice(0, 60)}${r.where ? `  ${r.where}` : ''}`);
  return lines;
}

/**
 * `node-flame profile --live`: every second the top functions of what the run has recorded so far. On a terminal
 * the table is redrawn in place (unless the app printed since, then drawn anew below); to a pipe or file each
 * table is plain text after a blank line, no escape codes.
 */
export function printLiveTable(runDir: string, out: NodeJS.WriteStream): LiveTable {
  // Read in the import worker, whose thread yields the CPU to the app (backgroundThread.ts); it keeps what it read.
  const worker = new ImportWorker(join(__dirname, 'worker.js'), cliBundle());
  const tty = out.isTTY === true;
  const t0 = Date.now();
  let drawn = 0;
  let busy = false;
  let stopped = false;
  /** The last sample time read, and where a restart put the window's start (ms on the profile's axis). */
  let lastTime: number | undefined;
  let since: number | undefined;
  const draw = async () => {
    if (busy) return;
    busy = true;
    try {
      let { profile } = await worker.loadResult(runDir, { live: true, sourceMaps: false });
      // A read that ends after the run did draws nothing: the run's own report follows.
      if (stopped) return;
      lastTime = lastSampleTime(profile) ?? lastTime;
      if (since !== undefined) profile = restrictToRange(profile, since, Infinity);
      const lines = table(profile, (Date.now() - t0) / 1000, since !== undefined);
      // Cursor up over the last table and clear to the end of the screen.
      const redraw = tty && drawn ? `\x1b[${drawn}F\x1b[J` : tty ? '' : '\n';
      out.write(redraw + lines.join('\n') + '\n');
      drawn = lines.length;
    } catch (e) {
      // Stop ends the worker: a read in flight then fails, and says nothing.
      if (!stopped && !(e as Error).message.includes(NOTHING_NEW)) out.write(`node-flame: ${(e as Error).message}\n`);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void draw(), LIVE_TABLE_MS);
  return {
    appWrote: () => void (drawn = 0),
    restart: () => {
      // A profile without sample times (heap) has no window to restart: its table stays whole.
      if (lastTime === undefined) return false;
      since = lastTime;
      return true;
    },
    stop: () => {
      stopped = true;
      clearInterval(timer);
      void worker.terminate();
    },
  };
}

export interface LiveTable {
  appWrote(): void;
  /** Restart window: the table shows only what comes after now (false: the profile has no sample times). */
  restart(): boolean;
  stop(): void;
}

/**
 * On a terminal, a line that is just "m" (or "m <label>") typed while the live table runs marks the moment on the
 * run's Timeline ("before the fix"), and "r" restarts the table's window there (marked too); every other line goes
 * to `other` (a launched app's stdin), or nowhere.
 */
export function markFromTerminal(
  run: { mark(label: string): void },
  table: Pick<LiveTable, 'appWrote' | 'restart'>,
  other?: (text: string) => void,
): { stop(): void } {
  let marks = 0;
  const onData = (d: Buffer) => {
    if (process.stdin.isTTY && /^r\r?\n$/.test(d.toString())) {
      if (!table.restart()) return void process.stderr.write(l10n.t('this profile has no sample times: its table stays whole') + '\n');
      run.mark(l10n.t('window restarted'));
      table.appWrote();
      return void process.stderr.write(l10n.t('window restarted') + '\n');
    }
    const m = process.stdin.isTTY ? /^m(?:\s+(.+))?\r?\n$/.exec(d.toString()) : null;
    if (!m) return other?.(d.toString());
    run.mark(m[1]?.trim() || l10n.t('mark {0}', String(++marks)));
    table.appWrote();
    process.stderr.write(l10n.t('marked') + '\n');
  };
  process.stdin.on('data', onData);
  process.stdin.on('error', () => {});
  return {
    stop: () => {
      process.stdin.off('data', onData);
      process.stdin.pause();
    },
  };
}
