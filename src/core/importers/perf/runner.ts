import type * as ChildProcess from 'node:child_process';
import { dirname } from 'node:path';
import * as l10n from '@vscode/l10n';
import { ProfileError, type Profile } from '../../model';
import type { ImportOptions } from '../types';
import { PerfScriptParser } from './parser';
import { savedJitMaps, type SavedJit } from './jitMaps';
import { AMBIGUOUS_JIT, JitFrameNamer, type JitNamingStats } from './jitNamer';
import { nativeDebugSymbols, recordedLibraries, type NativeDebugSymbols } from './nativeSymbols';
import { FramePointerCheck } from './framePointers';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = () => require('node:child_process') as typeof ChildProcess;

/** Only what the model uses: no `symoff`, so perf prints less and we parse less. */
export const PERF_SCRIPT_FIELDS = ['comm', 'pid', 'tid', 'time', 'period', 'event', 'ip', 'sym', 'dso'];

/**
 * Frames `perf script` lists of a stack, at most: it stops at kernel.perf_event_max_stack as it is when it runs (127
 * by default), and a recording made with the limit raised would read cut at the default.
 */
const PERF_SCRIPT_MAX_STACK = 65535;

/**
 * `perf script` arguments for a recording; `--header` gives the cmdline, the clock and the sample time span first,
 * `--ns` times to the nanosecond, as a jitdump's code loads are stamped.
 */
export function perfScriptArgs(file: string, fields = PERF_SCRIPT_FIELDS): string[] {
  return ['script', '-i', file, '--header', '--ns', '--max-stack', String(PERF_SCRIPT_MAX_STACK), '-F', fields.join(',')];
}

/**
 * Runs `perf script` on a perf.data file and parses its output as it arrives. perf resolves JIT
 * frames from `/tmp/perf-<pid>.map` itself while those exist; a run reopened later has them only in its
 * folder, and the frames perf leaves unnamed are named from there (nothing is copied into the shared /tmp).
 */
export async function loadPerfData(file: string, opts: ImportOptions, perfPath = process.env.NODE_FLAME_PERF || 'perf'): Promise<Profile> {
  if (opts.untrusted)
    throw new ProfileError(
      l10n.t(
        'a perf.data file is read by running "perf script" on it, which Node Flame does only in a trusted workspace. Trust this folder, or open the output of "perf script" instead.',
      ),
      file,
    );
  const maps = await savedJitMaps(dirname(file));
  const recorded = await recordedLibraries(perfPath, file);
  const native = await nativeDebugSymbols(recorded);
  const check = await FramePointerCheck.load({ recorded });
  try {
    return await loadPerfDataOnce(file, opts, perfPath, maps, native, check);
  } finally {
    check.close();
  }
}

async function loadPerfDataOnce(
  file: string,
  opts: ImportOptions,
  perfPath: string,
  maps: Map<number, SavedJit>,
  native: NativeDebugSymbols,
  check: FramePointerCheck,
): Promise<Profile> {
  let fields = PERF_SCRIPT_FIELDS;
  for (;;) {
    const r = await runOnce(file, opts, perfPath, fields, maps, native, check);
    if ('profile' in r) return r.profile;
    // Recordings made with a fixed period (`-c`) or without timestamps cannot print those fields.
    const missing = /Cannot print '(\w+)' field/.exec(r.stderr)?.[1];
    if (missing && fields.includes(missing) && !['ip', 'sym', 'dso'].includes(missing)) {
      fields = fields.filter((f) => f !== missing);
      continue;
    }
    throw new ProfileError(
      l10n.t('perf script failed: {0}', r.stderr.trim().split('\n').slice(0, 4).join(' ') || l10n.t('exit code {0}', String(r.code))),
      file,
    );
  }
}

type RunResult = { profile: Profile } | { code: number | null; stderr: string };

function runOnce(
  file: string,
  opts: ImportOptions,
  perfPath: string,
  fields: string[],
  maps: Map<number, SavedJit>,
  native: NativeDebugSymbols,
  check: FramePointerCheck,
): Promise<RunResult> {
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  return new Promise<RunResult>((resolve, reject) => {
    const child = childProcess().spawn(perfPath, perfScriptArgs(file, fields), { stdio: ['ignore', 'pipe', 'pipe'] });
    const parser = new PerfScriptParser(undefined, check);
    parser.threadLabel = opts.threadLabel;
    const namer = new JitFrameNamer(maps, native);
    let first = NaN;
    let last = NaN;
    parser.onComment = (line) => {
      const m = /^# (time of first sample|time of last sample|cmdline) : (.*)$/.exec(line);
      if (!m) return;
      if (m[1] === 'cmdline') parser.builder.meta.command = m[2].trim();
      else if (m[1] === 'time of first sample') first = Number(m[2]);
      else last = Number(m[2]);
    };
    let stderr = '';
    let settled = false;
    const onAbort = (): void => {
      child.kill('SIGTERM');
      done(() => reject(signal?.reason ?? new Error('aborted')));
    };
    const done = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (settled) return;
      parser.push(namer.push(chunk));
      if (onProgress && last > first) onProgress(Math.min(1, Math.max(0, (parser.latestTime - first) / (last - first))));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 65536) stderr += chunk.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      done(() =>
        reject(
          e.code === 'ENOENT'
            ? new ProfileError(
                l10n.t(
                  'reading perf.data needs the "perf" tool, which was not found. Install it (Debian/Ubuntu: sudo apt install linux-perf, or linux-tools-$(uname -r); Fedora: sudo dnf install perf), or open the output of "perf script" instead.',
                ),
                file,
              )
            : e,
        ),
      ),
    );
    child.on('close', (code) => {
      if (settled) return;
      if (code !== 0) return done(() => resolve({ code, stderr }));
      parser.push(namer.end());
      done(() => {
        for (const w of warningsFrom(stderr)) parser.builder.warn(w);
        const naming = namingWarnings(namer.stats);
        for (const w of naming) parser.builder.warn(w);
        if (naming.length) parser.builder.meta.unnamed = [...(parser.builder.meta.unnamed ?? []), ...naming];
        const profile = parser.end();
        onProgress?.(1);
        resolve({ profile });
      });
    });
  });
}

/** What the JIT naming could not do, said once per run. */
export function namingWarnings(s: JitNamingStats): string[] {
  const out: string[] = [];
  if (s.clockMismatch)
    out.push(
      l10n.t(
        'the JIT code records (jitdump) could not be matched to the samples: the recording did not use the monotonic clock (perf record -k mono)',
      ),
    );
  if (s.ambiguous)
    out.push(
      l10n.t(
        '{0} JavaScript frames are shown as {1}: V8 reused their addresses for other functions, and without a jitdump (node --perf-prof, perf record -k mono) the function that ran cannot be known',
        String(s.ambiguous),
        AMBIGUOUS_JIT,
      ),
    );
  const threads = [...s.ambiguousByThread].sort((a, b) => b[1] - a[1]);
  if (threads.length)
    out.push(
      l10n.t(
        'threads with JavaScript frames that cannot be named for sure: {0}',
        threads
          .slice(0, 8)
          .map(([t, n]) => `${t} (${n})`)
          .join(', ') + (threads.length > 8 ? ', …' : ''),
      ),
    );
  const libs = [...s.nativeUnnamed].sort((a, b) => b[1] - a[1]);
  if (libs.length)
    out.push(
      l10n.t(
        "native code without symbols is shown as library+offset ({0}): install the libraries' debug symbols (Debian/Ubuntu: the -dbgsym packages; or set DEBUGINFOD_URLS) to see its functions",
        libs
          .slice(0, 3)
          .map(([lib]) => lib.slice(lib.lastIndexOf('/') + 1))
          .join(', ') + (libs.length > 3 ? ', …' : ''),
      ),
    );
  return out;
}

/** perf's own complaints worth passing on: lost events, missing maps. */
function warningsFrom(stderr: string): string[] {
  const out: string[] = [];
  const lost = /Processed (\d+) events and lost (\d+) chunks/.exec(stderr);
  if (lost) out.push(l10n.t('perf lost {0} chunks of events while recording: the profile is partial', lost[2]));
  // Only where a run of digits starts: from inside one, a long run is matched again and again.
  const samples = /(?<!\d)(\d+) samples? (?:were )?lost/i.exec(stderr);
  if (samples) out.push(l10n.t('perf reports {0} lost samples', samples[1]));
  return out;
}
