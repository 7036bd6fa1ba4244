import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { perfScriptArgs } from '../core/importers/perf';
import { CREATE_NEW } from '../core/safeWrite';
import { Backlog, Pace, Unanswered, niceOf } from './backlogPace';

/**
 * A live perf run: `perf record -o -` writes the pipe format of its recording to its stdout, a regular file of the run
 * folder (perf.data) that we opened for it, so a slow reader never blocks perf nor loses it a sample. This follows what
 * perf.data gained and feeds it to ONE `perf script -i -` whose text grows in `perf-script-<stamp>.txt.part` (the live
 * reader reads what it gained, liveReader.ts) and is renamed `perf-script-<stamp>.txt` once perf and it ended.
 * One perf script for the run, where the slices of `--switch-output` took one each: its fixed cost (~0.45 s of CPU,
 * perf loading and demangling libnode's symbols, measured) is paid once, and a forked process's mappings, which perf
 * writes once, are known to the whole run.
 * perf writes a CPU's samples when its buffer is half full, which took the whole run of an app sampled 5 % of the time
 * (measured: perf.data stayed at its 3 KB header for 6 s); a `ping` on its control fd (fd 3, `--control fd:3`) wakes
 * it to write what it holds, as the slices' SIGUSR2 did.
 */
export const PERF_STREAM_OUTPUT = ['-q', '--control', 'fd:3', '-o', '-'];

const POLL_MS = 200;
/** perf is woken every other poll: the live view reads about once a second. */
const PING_EVERY = 2;
/** At most this much of perf.data is read into memory at once; the file, not node, holds what perf script has not taken. */
const STEP = 4 << 20;
/**
 * Measured on 2 shared cores: at the app's priority, perf script took about a third of a busy app's samples (CPU)
 * while it ran; so it starts niced and is raised only while it is behind (`Pace`). It was SCHED_IDLE in session 14,
 * which no unprivileged process may leave, and which got no CPU at all where no core was free.
 */

/** `perf-script-<yyyymmddhhmmssmmm>.txt`: named by when it started, as perf names a slice by when it ended. */
function stamp(d = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}${p(d.getMilliseconds(), 3)}`;
}

export class PerfStreamScripter {
  private timer: NodeJS.Timeout | undefined;
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private inFd: number | undefined;
  private outFd: number | undefined;
  private offset = 0;
  /** perf script's stdin is full: nothing more is read until it drains. */
  private waiting = false;
  private failed = false;
  private polls = 0;
  private readonly backlog = new Backlog();
  private readonly unanswered = new Unanswered();
  private pace: Pace | undefined;
  private readonly part: string;
  private readonly out: string;
  /** Bytes of perf.data fed to perf script so far. */
  get fed(): number {
    return this.offset;
  }

  constructor(
    private readonly runDir: string,
    private readonly perfPath: string,
    private readonly dataFile = join(runDir, 'perf.data'),
    /** perf's control fd (fd 3 of perf record). */
    private readonly control?: Writable | null,
  ) {
    control?.on('error', () => {});
    const name = `perf-script-${stamp()}.txt`;
    this.out = join(runDir, name);
    this.part = `${this.out}.part`;
  }

  /** Starts perf script, niced, and the follower; perf.data may still be empty. */
  start(): void {
    try {
      this.inFd = openSync(this.dataFile, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      this.outFd = openSync(this.part, CREATE_NEW, 0o644);
    } catch {
      this.failed = true;
      return;
    }
    const child = spawn(this.perfPath, perfScriptArgs('-'), { stdio: ['pipe', this.outFd, 'ignore'] });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.on('error', () => resolve(-1));
      child.on('exit', (code) => resolve(code));
    });
    // perf script ended early (it failed): what it wrote is not the recording; the end reads perf.data instead.
    child.stdin?.on('error', () => (this.failed = true));
    child.stdin?.on('drain', () => (this.waiting = false));
    if (child.pid) this.pace = new Pace(Date.now(), niceOf(child.pid));
    this.timer = setInterval(() => {
      if (++this.polls % PING_EVERY === 0 && this.control?.writable) this.control.write('ping\n');
      this.follow();
      if (this.inFd === undefined || this.outFd === undefined) return;
      const now = Date.now();
      const size = fstatSync(this.inFd).size;
      this.backlog.grew(now, size);
      // Behind: perf.data it has not taken (what is not yet written to its pipe), or input it took and has not answered.
      const notTaken = this.backlog.age(now, this.offset - (child.stdin?.writableLength ?? 0));
      this.pace?.update(now, Math.max(notTaken, this.unanswered.age(now, this.offset, fstatSync(this.outFd).size)));
    }, POLL_MS);
  }

  /** Feeds perf script what perf.data gained since the last call, as much as its stdin takes. */
  private follow(): boolean {
    const stdin = this.child?.stdin;
    if (this.inFd === undefined || !stdin || this.failed) return false;
    while (!this.waiting) {
      const size = fstatSync(this.inFd).size;
      if (size <= this.offset) return false;
      const buf = Buffer.allocUnsafe(Math.min(STEP, size - this.offset));
      const n = readSync(this.inFd, buf, 0, buf.length, this.offset);
      if (n <= 0) return false;
      this.offset += n;
      if (!stdin.write(buf.subarray(0, n))) this.waiting = true;
    }
    return true;
  }

  /**
   * After perf ended: the rest of perf.data fed, perf script's input closed, and its text renamed into place once it
   * ended. At exit it is what the user waits for, so it leaves the background (where the system lets it).
   */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    this.control?.destroy();
    const child = this.child;
    // Only a privileged process may raise a priority: elsewhere it stays niced.
    if (child?.pid) niceOf(child.pid)(0);
    const stdin = child?.stdin;
    if (stdin && !this.failed) {
      for (;;) {
        if (this.waiting) await new Promise<void>((r) => stdin.once('drain', r).once('close', r));
        if (this.failed || (!this.follow() && !this.waiting)) break;
      }
      stdin.end();
    }
    const code = await this.exited;
    if (this.inFd !== undefined) closeSync(this.inFd);
    if (this.outFd !== undefined) closeSync(this.outFd);
    if (this.failed && !child) return;
    try {
      if (code === 0 && !this.failed) renameSync(this.part, this.out);
      else unlinkSync(this.part);
    } catch {
      // the folder changed under the run
    }
  }
}
