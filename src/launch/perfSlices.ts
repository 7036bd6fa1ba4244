import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { perfScriptArgs } from '../core/importers/perf';
import { CREATE_NEW } from '../core/safeWrite';
import { descendantPids } from './processTree';
import { findOnPath } from './which';

/**
 * A live perf run: `perf record --switch-output` ends a slice of the recording on SIGUSR2 (`perf.data` renamed
 * `perf.data.<stamp>`, a whole recording of its own, with the maps of what was already running synthesized into it).
 * Each ended slice is scripted here while the app runs, so perf names its JIT frames from `/tmp/perf-<pid>.map` as it
 * grows, into `perf-script-<stamp>.txt`: the live reader reads those, and the final profile is their union (the
 * slices themselves go once scripted). Each `perf script` costs ~0.5 s of CPU (measured), most of it perf loading and
 * demangling node's symbols, whatever the slice holds; so the next slice is asked for only once the last one is
 * scripted and a second has passed (perf's own `--switch-output=1s` outran the scripting on a loaded machine, and
 * the backlog made the exit wait): the slices grow when the machine is busy, and at exit one slice is left.
 */
export const PERF_SWITCH_OUTPUT = ['--switch-output=signal', '-q'];

const SLICE = /^perf\.data\.(\d+)$/;
const POLL_MS = 200;
const SLICE_MS = 1000;
/**
 * Measured on 2 shared cores: at the app's priority, perf script took about a third of a busy app's samples (CPU)
 * while it ran; niced, the live view waits instead of the app.
 */
const BACKGROUND_NICE = 19;
/** `chrt`, which starts a program under SCHED_IDLE (util-linux; no privilege needed to lower one's own policy). */
let IDLE_POLICY: string | undefined;
void findOnPath('chrt').then((p) => (IDLE_POLICY = p));

export class PerfSliceScripter {
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;
  private stopped = false;
  /** The app forked: no more slices (see step). */
  private oneSlice = false;
  private switchedAt = Date.now();
  private readonly inFlight = new Set<string>();
  /** Time (ms) spent in `perf script` so far, and the slices scripted. */
  readonly cost = { wallMs: 0, slices: 0 };

  /** `perfPid` answers perf's pid while it runs (undefined once it ended: it is never signalled then). */
  constructor(
    private readonly runDir: string,
    private readonly perfPath: string,
    private readonly perfPid: () => number | undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.busy ??= this.step().finally(() => (this.busy = undefined));
    }, POLL_MS);
  }

  private async step(): Promise<void> {
    await this.scriptEnded(true);
    const pid = this.perfPid();
    if (this.stopped || this.oneSlice || pid === undefined || Date.now() - this.switchedAt < SLICE_MS) return;
    // perf writes the mappings of a process it did not start (the app forked it) into the slice where it began only:
    // a later slice would name none of its code (seen: a forked child's every frame [unknown]). From the first
    // fork on, the rest of the run stays in one slice, which holds them; the live view waits for the run's end.
    if (descendantPids(pid).length > 1) {
      this.oneSlice = true;
      return;
    }
    this.switchedAt = Date.now();
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // perf ended meanwhile
    }
  }

  /** After perf ended: the slices not scripted yet (its last), then nothing left but the scripts. */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    // The last slice is scripted beside the one in flight, not after it: the exit waits for one perf script, not two.
    await Promise.all([this.busy, this.scriptEnded(false)]);
    this.stopped = true;
  }

  /** `background`: while the app runs, perf script yields the CPU to it (nice 10); at exit it is what the user waits for. */
  private async scriptEnded(background: boolean): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.runDir);
    } catch {
      return;
    }
    for (const n of names.filter((x) => SLICE.test(x)).sort()) {
      if (this.stopped || this.inFlight.has(n)) continue;
      this.inFlight.add(n);
      const stamp = SLICE.exec(n)![1];
      if (await this.script(join(this.runDir, n), join(this.runDir, `perf-script-${stamp}.txt`), background))
        rmSync(join(this.runDir, n), { force: true });
    }
  }

  /** `perf script` of one slice into a temp file renamed into place when complete, so a reader never sees half. */
  private script(slice: string, out: string, background: boolean): Promise<boolean> {
    const tmp = `${out}.part`;
    let fd: number;
    try {
      fd = openSync(tmp, CREATE_NEW, 0o644);
    } catch {
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      // SCHED_IDLE (through chrt, when there is one): perf script runs only on CPU time nothing else wants.
      const idle = background ? IDLE_POLICY : undefined;
      const [cmd, args] = idle ? [idle, ['--idle', '0', this.perfPath, ...perfScriptArgs(slice)]] : [this.perfPath, perfScriptArgs(slice)];
      const child = spawn(cmd, args, { stdio: ['ignore', fd, 'ignore'] });
      if (background && child.pid)
        try {
          setPriority(child.pid, BACKGROUND_NICE);
        } catch {
          // not allowed here: it runs at the app's priority
        }
      const t0 = process.hrtime.bigint();
      const done = (ok: boolean) => {
        closeSync(fd);
        try {
          if (ok) renameSync(tmp, out);
          else unlinkSync(tmp);
        } catch {
          ok = false;
        }
        resolve(ok);
      };
      child.on('error', () => done(false));
      child.on('exit', (code) => {
        this.cost.wallMs += Number(process.hrtime.bigint() - t0) / 1e6;
        this.cost.slices++;
        done(code === 0);
      });
    });
  }
}
