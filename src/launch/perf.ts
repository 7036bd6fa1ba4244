import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formatJitLoads, readJitDump } from '../core/importers/perf/jitDump';
import * as l10n from '@vscode/l10n';
import { findOnPath, isExecutable } from './which';
import { createNewFile } from '../core/safeWrite';
import { PERF_STREAM_OUTPUT } from './perfStream';

/** 999 Hz rather than 1000, so sampling does not beat in step with millisecond timers. */
export const DEFAULT_PERF_HZ = 999;

/**
 * Node flags without which JS frames are nameless (`--perf-basic-prof`) or fold into the interpreter trampoline.
 * `--perf-prof` writes a jitdump (`jit-<pid>.dump` in the process's cwd) whose code records carry times, so an
 * address V8 freed and reused is named by the code there at each sample; the map stays as the fallback.
 */
export const PERF_NODE_FLAGS = ['--perf-basic-prof', '--perf-prof', '--interpreted-frames-native-stack'];

/** `perf record` options every perf run takes: the monotonic clock, the one V8 stamps its jitdump records with. */
export const PERF_RECORD_CLOCK = ['-k', 'mono'];

export type PerfPreflight = { ok: true; perfPath: string } | { ok: false; message: string };

const INSTALL_HINT = (): string =>
  l10n.t(
    'Install it: Debian: sudo apt install linux-perf; Ubuntu: sudo apt install linux-tools-$(uname -r) linux-tools-generic; Fedora/RHEL: sudo dnf install perf.',
  );

/** CAP_SYS_ADMIN (21) or CAP_PERFMON (38) in the effective set lift the paranoid limit. */
const CAP_SYS_ADMIN = 21n;
const CAP_PERFMON = 38n;

/**
 * Checks that `perf record` can work here, cheapest check first, and says how to fix what cannot.
 * `paranoidFile` and `statusFile` default to the live `/proc` files; tests point them elsewhere.
 */
export async function preflightPerf(
  opts: { perfPath?: string; paranoidFile?: string; statusFile?: string; platform?: NodeJS.Platform } = {},
): Promise<PerfPreflight> {
  const platform = opts.platform ?? process.platform;
  if (platform !== 'linux') {
    return {
      ok: false,
      message: l10n.t(
        'Linux perf mode works only on Linux (this is {0}). Use the V8 tick profiler instead: --mode prof (node --prof), or --mode cpu-prof.',
        platform,
      ),
    };
  }
  const perfPath = opts.perfPath ?? (await findOnPath('perf'));
  if (!perfPath || !(await isExecutable(perfPath))) {
    const what = opts.perfPath ? l10n.t('"{0}" is not an executable perf.', opts.perfPath) : l10n.t('"perf" was not found on PATH.');
    return { ok: false, message: `${what} ${INSTALL_HINT()}` };
  }
  const paranoid = await readParanoid(opts.paranoidFile ?? '/proc/sys/kernel/perf_event_paranoid');
  if (paranoid !== undefined && paranoid > 2 && !(await perfmonCapable(opts.statusFile ?? '/proc/self/status'))) {
    return { ok: false, message: paranoidMessage(paranoid) };
  }
  return probe(perfPath);
}

function paranoidMessage(value: number): string {
  return l10n.t(
    'perf cannot sample: kernel.perf_event_paranoid is {0}, and profiling your own processes needs 2 or lower. Run: sudo sysctl kernel.perf_event_paranoid=2 (to keep it after a reboot: echo kernel.perf_event_paranoid=2 | sudo tee /etc/sysctl.d/99-perf.conf).',
    String(value),
  );
}

async function readParanoid(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const n = text === undefined ? NaN : Number.parseInt(text.trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

async function perfmonCapable(statusFile: string): Promise<boolean> {
  const status = await readFile(statusFile, 'utf8').catch(() => '');
  const hex = /^CapEff:\s*([0-9a-f]+)/im.exec(status)?.[1];
  if (!hex) return false;
  const caps = BigInt('0x' + hex);
  return ((caps >> CAP_SYS_ADMIN) & 1n) === 1n || ((caps >> CAP_PERFMON) & 1n) === 1n;
}

/**
 * Opens one user-space software counter around `true`: ~10 ms, where a `perf record` probe takes
 * a second. It fails the same way recording would when seccomp or missing capabilities refuse
 * `perf_event_open` (containers), and when the distro's perf wrapper lacks this kernel's tools.
 */
function probe(perfPath: string): Promise<PerfPreflight> {
  return new Promise((resolve) => {
    execFile(
      perfPath,
      ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'],
      { timeout: 10000 },
      (err, _stdout, stderr) => {
        if (!err) return resolve({ ok: true, perfPath });
        const text = String(stderr);
        if (/not found for kernel/i.test(text)) {
          return resolve({
            ok: false,
            message: l10n.t('perf is installed, but not for the running kernel. Run: sudo apt install linux-tools-$(uname -r)'),
          });
        }
        const paranoid = /perf_event_paranoid setting is (-?\d+)/.exec(text);
        if (paranoid && Number(paranoid[1]) > 2) return resolve({ ok: false, message: paranoidMessage(Number(paranoid[1])) });
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          return resolve({ ok: false, message: `${l10n.t('"{0}" could not be run.', perfPath)} ${INSTALL_HINT()}` });
        const detail =
          text
            .trim()
            .split('\n')
            .find((l) => l.trim()) ?? String(err.message);
        resolve({
          ok: false,
          message: l10n.t(
            'perf is installed but the kernel refused perf_event_open ({0}). In a container, start it with --cap-add PERFMON (or --cap-add SYS_ADMIN) and --security-opt seccomp=unconfined, and on the host run: sudo sysctl kernel.perf_event_paranoid=2. Otherwise use --mode prof.',
            detail.trim(),
          ),
        });
      },
    );
  });
}

/**
 * Whether a perf run streams its recording for the live view (perfStream.ts): a live perf run. perf writes the pipe
 * format to its stdout, which the launcher points at the run folder's perf.data.
 */
export function perfLiveStream(o: { mode: string; live?: boolean }): boolean {
  return o.mode === 'perf' && !!o.live;
}

/**
 * The workload of `perf record -- …`. A live run's perf writes its recording to its stdout and gives the workload its
 * stderr for a stdout; the app's own stdout comes on fd 4 (launcher.ts), and perf's control fd (3) is not the app's.
 */
export function perfWorkload(live: boolean | undefined, workload: string[]): string[] {
  return live ? ['/bin/sh', '-c', 'exec "$@" >&4 3>&- 4>&-', 'sh', ...workload] : workload;
}

/**
 * `perf record`'s own arguments, before `--` and the workload: the rate, call graphs, the clock, the output (a live
 * run's is perf's stdout, the pipe format, which the launcher points at `output`).
 */
export function perfRecordArgs(opts: { hz?: number; live?: boolean; output: string }): string[] {
  const hz = Math.max(1, Math.round(opts.hz ?? DEFAULT_PERF_HZ));
  return ['record', '-F', String(hz), '-g', ...PERF_RECORD_CLOCK, ...(opts.live ? PERF_STREAM_OUTPUT : ['-o', opts.output])];
}

/**
 * `perf record -F <hz> -g -k mono -o <output> -- node --perf-basic-prof --perf-prof --interpreted-frames-native-stack …`.
 * Frame-pointer call graphs (`-g`): DWARF unwinding made files 15× bigger and rarely reached the root.
 */
export function perfRecordCommand(opts: {
  perfPath?: string;
  hz?: number;
  output: string;
  /** A live run: perf writes its recording to its stdout (perfStream.ts). */
  live?: boolean;
  node: string;
  nodeArgs: string[];
  program: string;
  args: string[];
  /** PATH for the workload, set again by `env` in front of it: perf puts its own folders first. */
  workloadPath?: string;
}): {
  command: string;
  args: string[];
} {
  const flags = PERF_NODE_FLAGS.filter((f) => !opts.nodeArgs.includes(f));
  const words = [opts.node, ...flags, ...opts.nodeArgs, opts.program, ...opts.args];
  const workload = opts.workloadPath !== undefined ? ['env', `PATH=${opts.workloadPath}`, ...words] : words;
  return {
    command: opts.perfPath ?? 'perf',
    args: [...perfRecordArgs(opts), '--', ...perfWorkload(opts.live, workload)],
  };
}

/** Removes the JIT maps `--perf-basic-prof` left for these processes, and nothing else. */
export async function cleanupPerfMaps(pids: number[]): Promise<void> {
  const unique = [...new Set(pids.filter((p) => Number.isInteger(p) && p > 0))];
  await Promise.all(unique.map((pid) => rm(`/tmp/perf-${pid}.map`, { force: true })));
}

/** Process ids in a perf.data recording's JIT map names or `perf script` output (`/tmp/perf-<pid>.map`). */
export function perfMapPids(text: string): number[] {
  const out = new Set<number>();
  for (const m of text.matchAll(/\/tmp\/perf-(\d+)\.map/g)) out.add(Number(m[1]));
  return [...out];
}

/**
 * Moves each process's jitdump out of the folder V8 wrote it to (the process's cwd) into the run folder, in the
 * compact form the importer reads (`jit-<pid>.map`: the loads' times, addresses and names, without the code
 * bytes that make up nearly all of a dump: 88 MB → 4 MB for 30,000 functions). Returns the pids saved.
 */
export async function collectJitDumps(pids: number[], cwds: string[], runDir: string): Promise<number[]> {
  const saved: number[] = [];
  for (const pid of new Set(pids)) {
    for (const dir of new Set(cwds)) {
      const src = join(dir, `jit-${pid}.dump`);
      const loads = await readJitDump(src);
      if (!loads) continue;
      // A run folder is the repository's to shape: never written through a link it planted.
      await createNewFile(join(runDir, `jit-${pid}.map`), formatJitLoads(loads));
      await rm(src, { force: true });
      saved.push(pid);
      break;
    }
  }
  return saved;
}
