import { join, resolve } from 'node:path';
import * as l10n from '@vscode/l10n';
import { isLaunchMode, type LaunchMode } from '../launch/run/modes';
import type { HeapSamples } from '../launch/preload/heapProfile';
import { SETTING_LIMITS } from '../core/settingLimits';
import { classifyCommand, isTypeScriptFile } from '../launch/commandLine';
import { targetFromCommand, targetFromNodeCommand } from '../launch/target';
import { findLoader } from '../launch/loader';
import { createRunDir, removeIfEmpty, RUNS_DIR } from '../launch/run/runFolder';
import { ProfileSession } from '../launch/launcher';
import { LaunchError, nodeNotRunnable } from '../launch/errors';
import { cleanupPerfMaps } from '../launch/perf';
import { loadRunProfile } from '../launch/run/runProfile';
import { parseCommand, usageError, type CliCommand } from './args';
import { SOURCE_MAP_OPTIONS, sourceMapOptionsFrom } from './sourceMapFlags';
import { ALL_PROCESSES, emitReport, OUTPUT_OPTIONS, outputSettings } from './report';
import { TRANSFORM_OPTIONS, transformsFrom } from './transforms';
import { markFromTerminal, printLiveTable } from './liveTable';
import { growYoungGenerationForTickLogs } from './load';

export const PROFILE = {
  name: 'profile',
  args: '-- <command: node app.js, npm run dev, …>',
  summary: () => l10n.t('run a Node.js app under the profiler, then print its report'),
  details: () =>
    l10n.t(
      'Ctrl+C stops the app gracefully and the profile is written; --load runs a shell command once the app listens, then stops the app.\n' +
        'Each run gets <out>/<YYYYMMDD-HHMMSS>-<mode>/ with the raw profile and run.json; the text report is printed at the end.',
    ),
  options: {
    mode: {
      type: 'string',
      short: 'm',
      default: 'prof',
      value: 'mode',
      help: () =>
        l10n.t('prof (V8 tick log), perf (perf record, native frames), cpu-prof (--cpu-prof) or heap (sampling heap profile, bytes)'),
    },
    load: {
      type: 'string',
      short: 'l',
      value: 'cmd',
      help: () => l10n.t('shell command to run once the app listens; the app is stopped when it ends'),
    },
    port: { type: 'string', short: 'p', value: 'N', help: () => l10n.t('the port the app listens on (else read from its output)') },
    out: { type: 'string', default: '.nodeflame', value: 'dir', help: () => l10n.t('folder for the run folders') },
    'stop-timeout': { type: 'string', value: 's', help: () => l10n.t('seconds to wait for the app to end after a stop before killing it') },
    'port-timeout': { type: 'string', value: 's', help: () => l10n.t('seconds to wait for the port before giving up') },
    frequency: { type: 'string', short: 'F', value: 'hz', help: () => l10n.t('perf sampling frequency') },
    'heap-interval': {
      type: 'string',
      value: 'bytes',
      help: () => l10n.t('heap mode: average bytes between two samples (default {0})', SETTING_LIMITS.heapSamplingInterval.fallback),
    },
    'heap-samples': {
      type: 'string',
      value: 'which',
      help: () => l10n.t('heap mode: allocated (every sampled allocation, default) or live (only what is still reachable at exit)'),
    },
    'no-report': { type: 'boolean', help: () => l10n.t('only record: do not print the report') },
    'no-requests': {
      type: 'boolean',
      help: () => l10n.t('do not record the HTTP requests the app serves (per-route figures and --route need them)'),
    },
    live: {
      type: 'boolean',
      help: () =>
        l10n.t(
          'print the top functions (heap mode: allocations) every second while the app runs; on a terminal, m then Enter marks the moment, r then Enter restarts the window there',
        ),
    },
    ...OUTPUT_OPTIONS,
    'all-processes': ALL_PROCESSES,
    ...TRANSFORM_OPTIONS,
    ...SOURCE_MAP_OPTIONS,
  },
} satisfies CliCommand;

/** An option's positive number; undefined when absent; throws the usage problem otherwise. */
export function positiveNumber(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(l10n.t('--{0} needs a positive number, got "{1}"', name, v));
  return n;
}

export async function runProfile(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const commandWords = dash < 0 ? [] : argv.slice(dash + 1);
  const parsed = parseCommand(PROFILE, own);
  if (typeof parsed === 'number') return parsed;
  const opts = parsed.values;
  let mode: LaunchMode;
  let port: number | undefined;
  let stopTimeout: number | undefined;
  let portTimeout: number | undefined;
  let frequency: number | undefined;
  let heapInterval: number | undefined;
  let heapSamples: HeapSamples | undefined;
  let sourceMapOptions: ReturnType<typeof sourceMapOptionsFrom>;
  // The report options are checked before the app runs: a typo must not cost a profiling run.
  const settings = outputSettings(opts);
  if (typeof settings === 'string') return usageError(PROFILE, settings);
  const transforms = transformsFrom(parsed.order);
  if (typeof transforms === 'string') return usageError(PROFILE, transforms);
  try {
    const m = opts.mode ?? 'prof';
    if (!isLaunchMode(m)) throw new Error(l10n.t('unknown mode "{0}" (use prof, perf, cpu-prof or heap)', m));
    mode = m;
    port = positiveNumber(opts.port, 'port');
    stopTimeout = positiveNumber(opts['stop-timeout'], 'stop-timeout');
    portTimeout = positiveNumber(opts['port-timeout'], 'port-timeout');
    frequency = positiveNumber(opts.frequency, 'frequency');
    heapInterval = positiveNumber(opts['heap-interval'], 'heap-interval');
    const hs = opts['heap-samples'];
    if (hs !== undefined && hs !== 'allocated' && hs !== 'live')
      throw new Error(l10n.t('--heap-samples is allocated or live, got "{0}"', hs));
    heapSamples = hs;
    const sm = sourceMapOptionsFrom(opts);
    if (typeof sm === 'string') throw new Error(sm);
    sourceMapOptions = sm;
  } catch (e) {
    return usageError(PROFILE, (e as Error).message);
  }
  const what = classifyCommand(commandWords);
  if (!what) {
    return usageError(PROFILE, l10n.t('give the app after "--", e.g. -- node app.js'));
  }
  const cwd = process.cwd();
  const target = 'node' in what ? targetFromNodeCommand(what.node, cwd) : targetFromCommand(what.command, what.env, cwd);
  if ('node' in what && what.node.node && !target.nodePath && what.node.node !== 'node') target.nodePath = what.node.node;
  const loader = !target.command && isTypeScriptFile(target.program) && !target.loader ? findLoader(cwd)?.args : undefined;
  const runDir = createRunDir(resolve(opts.out ?? join(cwd, RUNS_DIR)), mode);

  const session = new ProfileSession({
    target,
    mode,
    runDir,
    preloadPath: join(__dirname, 'preload-stop.js'),
    loader,
    loadCommand: opts.load,
    loadCwd: cwd,
    waitForPort: port,
    portTimeoutMs: portTimeout && portTimeout * 1000,
    stopTimeoutMs: stopTimeout && stopTimeout * 1000,
    perfFrequency: frequency,
    heapInterval,
    heapSamples,
    trackRequests: !opts['no-requests'],
    live: opts.live,
    onOutput: (text, kind) => {
      live?.appWrote();
      (kind === 'stdout' || kind === 'load' ? process.stdout : process.stderr).write(text);
    },
  });
  const live = opts.live ? printLiveTable(runDir, process.stdout) : undefined;

  // Ctrl+C reaches only us (the app has its own process group): the first stops the app gracefully, a second kills it.
  const onSignal = () => session.stop('user');
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  const onStdin = (d: Buffer) => session.write(d.toString());
  // Live, on a terminal, a line that is just "m" marks the moment on the run's Timeline instead of reaching the app.
  const marks = live ? markFromTerminal({ mark: (label) => session.markMoment(label) }, live, (text) => session.write(text)) : undefined;
  if (!marks) process.stdin.on('data', onStdin);
  process.stdin.on('error', () => {});

  let result;
  try {
    result = await session.run();
  } catch (e) {
    if (e instanceof LaunchError) {
      removeIfEmpty(runDir);
      process.stderr.write(`node-flame profile: ${cliMessage(e)}\n`);
      return 1;
    }
    throw e;
  } finally {
    live?.stop();
    for (const s of signals) process.off(s, onSignal);
    marks?.stop();
    process.stdin.off('data', onStdin);
    process.stdin.destroy();
  }

  try {
    if (result.error) process.stderr.write(`node-flame profile: ${cliMessage(result.error)}\n`);
    process.stderr.write(l10n.t('Run folder: {0}', result.runDir) + '\n');
    const main = result.profiles[0];
    if (!main) return 1;
    process.stderr.write(l10n.t('Profile: {0}', main) + '\n');
    if (opts['no-report']) return result.error ? 1 : 0;
    // The run folder is read as `report <run folder>` reads it, whatever the run: one process or many, its requests,
    // its processes, its lost profiles. Read from its first file alone, a server's report had no Requests.
    if (mode === 'prof') growYoungGenerationForTickLogs();
    const profile = await loadRunProfile(result.runDir, { sourceMapOptions, allProcesses: opts['all-processes'] });
    profile.meta.mode ??= mode;
    profile.meta.command ??= result.info.command.join(' ');
    // The warnings are said here, where the run's output is read, as `report` says them.
    const code = await emitReport('profile', profile, transforms, { ...settings, source: result.runDir });
    return result.error ? 1 : code;
  } finally {
    await cleanupPerfMaps(result.perfPids);
  }
}

/** The editor's next step names a setting; on the command line the node to use is the word after "--". */
function cliMessage(e: LaunchError): string {
  if (e.code !== 'node-not-found' || !e.facts.node) return e.message;
  return `${nodeNotRunnable(e.facts.node, e.facts.detail ?? '')} ${l10n.t('Install Node.js, or give the full path of node after "--", for example: -- /usr/local/bin/node app.js')}`;
}
