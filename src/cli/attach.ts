import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as l10n from '@vscode/l10n';
import {
  AttachSession,
  InspectorError,
  LIVE_ATTACH_CHUNK_MS,
  liveAttach,
  type LiveAttach,
  inspectorOfProcess,
  makeRunDir,
  nodeProcessOf,
  receivedProfile,
  runLoadCommand,
  saveAttachRun,
  targetsAt,
  type AttachResult,
  type AttachTarget,
  type StoppedBy,
} from '../launch/inspector';
import { createPathMapper } from '../core/pathMapping';
import { SETTING_LIMITS } from '../core/settingLimits';
import { RUNS_DIR } from '../launch/run/runFolder';
import { loadRunProfile } from '../launch/run/runProfile';
import { parseCommand, usageError, type CliCommand } from './args';
import { positiveNumber, PROFILE } from './profile';
import { emitReport, OUTPUT_OPTIONS, outputSettings } from './report';
import { TRANSFORM_OPTIONS, transformsFrom } from './transforms';
import { SOURCE_MAP_OPTIONS, sourceMapOptionsFrom } from './sourceMapFlags';
import { markFromTerminal, printLiveTable } from './liveTable';

export const ATTACH = {
  name: 'attach',
  args: '<pid | host:port | ws://…>',
  summary: () => l10n.t('profile a Node.js process that is already running, through its inspector, then print its report'),
  details: () =>
    l10n.t(
      'A pid: its inspector is used when it is on, else switched on with SIGUSR1 (it then listens on 127.0.0.1 until the process exits). host:port or a ws:// URL: an inspector started with --inspect.\n' +
        'Records until --duration ends or Ctrl+C, which stops recording and still writes the profile, to <out>/<YYYYMMDD-HHMMSS>-attach/ with run.json.',
    ),
  options: {
    profile: {
      type: 'string',
      default: 'cpu',
      value: 'kind',
      help: () => l10n.t('cpu (CPU profile) or heap (sampling heap profile, bytes)'),
    },
    duration: { type: 'string', short: 'd', value: 's', help: () => l10n.t('stop after this many seconds (default: at Ctrl+C)') },
    load: {
      type: 'string',
      short: 'l',
      value: 'cmd',
      help: () => l10n.t('shell command to run while recording (e.g. a load generator); recording stops when it ends'),
    },
    out: { type: 'string', default: RUNS_DIR, value: 'dir', help: () => l10n.t('folder for the run folders') },
    'sampling-interval': { type: 'string', value: 'µs', help: () => l10n.t('cpu: microseconds between two samples (default 1000)') },
    'heap-interval': PROFILE.options['heap-interval'],
    'heap-samples': {
      type: 'string',
      value: 'which',
      help: () => l10n.t('heap: allocated (every sampled allocation, default) or live (only what is still reachable when recording stops)'),
    },
    live: {
      type: 'boolean',
      help: () => l10n.t('cpu: print the top functions every second while recording (the profile is taken in a piece a second)'),
    },
    'no-report': PROFILE.options['no-report'],
    ...OUTPUT_OPTIONS,
    'no-source-maps': { type: 'boolean', help: () => l10n.t('do not map JavaScript frames through source maps') },
    ...TRANSFORM_OPTIONS,
    ...SOURCE_MAP_OPTIONS,
  },
} satisfies CliCommand;

/** The inspector target a pid, an address or a ws:// URL names. */
async function findTarget(what: string): Promise<AttachTarget> {
  if (!/^\d+$/.test(what)) return (await targetsAt(what))[0];
  const p = await nodeProcessOf(Number(what));
  const target = await inspectorOfProcess(p, {
    enabling: (p, work) => {
      process.stderr.write(
        l10n.t('Switching on the inspector of process {0} (SIGUSR1): it listens on 127.0.0.1 until the process exits.', String(p.pid)) +
          '\n',
      );
      return work();
    },
  });
  // No confirm was asked for, so there always is one.
  return target!;
}

function fail(e: unknown): number {
  if (!(e instanceof InspectorError)) throw e;
  process.stderr.write(`node-flame attach: ${e.message}\n`);
  return 2;
}

export async function runAttach(argv: string[]): Promise<number> {
  const parsed = parseCommand(ATTACH, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError(ATTACH, l10n.t('give one pid, host:port or ws:// URL'));
  let durationS: number | undefined;
  let samplingIntervalUs: number | undefined;
  let heap: { samplingInterval: number; samples: 'allocated' | 'live' } | undefined;
  try {
    const kind = values.profile ?? 'cpu';
    if (kind !== 'cpu' && kind !== 'heap') throw new Error(l10n.t('--profile is cpu or heap, got "{0}"', kind));
    durationS = positiveNumber(values.duration, 'duration');
    samplingIntervalUs = positiveNumber(values['sampling-interval'], 'sampling-interval');
    const heapInterval = positiveNumber(values['heap-interval'], 'heap-interval');
    const hs = values['heap-samples'] ?? 'allocated';
    if (hs !== 'allocated' && hs !== 'live') throw new Error(l10n.t('--heap-samples is allocated or live, got "{0}"', hs));
    if (kind === 'heap') heap = { samplingInterval: heapInterval ?? SETTING_LIMITS.heapSamplingInterval.fallback, samples: hs };
  } catch (e) {
    return usageError(ATTACH, (e as Error).message);
  }
  const settings = outputSettings(values);
  if (typeof settings === 'string') return usageError(ATTACH, settings);
  const transforms = transformsFrom(parsed.order);
  if (typeof transforms === 'string') return usageError(ATTACH, transforms);
  const sourceMapOptions = sourceMapOptionsFrom(values);
  if (typeof sourceMapOptions === 'string') return usageError(ATTACH, sourceMapOptions);

  const cwd = process.cwd();
  const out = resolve(values.out ?? join(cwd, RUNS_DIR));
  let target: AttachTarget;
  let session: AttachSession;
  // Live: the run folder is made first, and the session's pieces go into it as they come for the live table.
  let dir: string | undefined;
  let watched: LiveAttach | undefined;
  try {
    target = await findTarget(positionals[0]);
    dir = values.live ? await makeRunDir(out) : undefined;
    watched = dir ? liveAttach(dir, Date.now(), heap) : undefined;
    const live = watched ? { chunkMs: LIVE_ATTACH_CHUNK_MS, ...(heap ? { onHeap: watched.onHeap } : { onPart: watched.onPart }) } : {};
    session = await AttachSession.start(target, { samplingIntervalUs, heap, ...live });
  } catch (e) {
    // Nothing was recorded: the live folder holds only its start.
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    return fail(e);
  }
  const table = dir ? printLiveTable(dir, process.stdout) : undefined;
  const marks = watched && table ? markFromTerminal(watched, table) : undefined;
  const result = await record(session, target, durationS, values.load).finally(() => {
    table?.stop();
    marks?.stop();
  });
  let received;
  try {
    received = receivedProfile(result.result);
  } catch (e) {
    fail(e);
    return 1;
  }
  dir ??= await makeRunDir(out);
  // A process in a container names its own paths: the same file under the current folder stands for each.
  const saved = await saveAttachRun(dir, received, {
    target,
    stoppedBy: result.stoppedBy,
    samplingIntervalUs,
    loadCommand: values.load,
    loadExitCode: result.loadExit,
    ...(watched?.events.length ? { events: watched.events } : {}),
    mapPath: createPathMapper({ roots: [cwd] }),
  });
  if (result.result.lost) process.stderr.write(`node-flame attach: ${result.result.lost.message}\n`);
  process.stderr.write(l10n.t('Run folder: {0}', dir) + '\n');
  process.stderr.write(l10n.t('Profile: {0}', saved.profilePath) + '\n');
  const code = result.result.lost ? 1 : 0;
  if (values['no-report']) return code;
  const loaded = await loadRunProfile(dir, { sourceMaps: !values['no-source-maps'], sourceMapOptions });
  return (await emitReport('attach', loaded, transforms, { ...settings, source: saved.profilePath })) || code;
}

/** Records until the duration ends, Ctrl+C (or SIGTERM, SIGHUP) or the connection drops; a second Ctrl+C gives up at once. */
async function record(
  session: AttachSession,
  target: AttachTarget,
  durationS: number | undefined,
  loadCommand: string | undefined,
): Promise<{ result: AttachResult; stoppedBy: StoppedBy; loadExit?: number | null }> {
  let stoppedBy: StoppedBy | undefined;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  // The first reason is the one recorded: a load ended by our own stop is not why recording stopped.
  const end = (why: StoppedBy) => {
    stoppedBy ??= why;
    stop();
  };
  let signalled = false;
  const onSignal = () => {
    if (signalled) process.exit(130);
    signalled = true;
    end('user');
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  session.onLost(() => end('lost'));
  const timer = durationS ? setTimeout(() => end('duration'), durationS * 1000) : undefined;
  const where = target.pid ? `${target.address} (pid ${target.pid})` : target.address;
  process.stderr.write(
    (loadCommand
      ? l10n.t('Recording {0} while the load command runs (Ctrl+C stops it sooner)…', where)
      : durationS
        ? l10n.t('Recording {0} for {1} s (Ctrl+C stops it sooner)…', where, String(durationS))
        : l10n.t('Recording {0} until Ctrl+C…', where)) + '\n',
  );
  let loadExit: number | null | undefined;
  const load = loadCommand
    ? runLoadCommand(loadCommand, { cwd: process.cwd(), onLine: (line) => process.stderr.write(line + '\n') })
    : undefined;
  void load?.done.then((code) => {
    loadExit = code;
    end('load');
  });
  try {
    await stopped;
    const result = await session.stop();
    return { result, stoppedBy: stoppedBy ?? 'user', loadExit };
  } finally {
    load?.kill();
    clearTimeout(timer);
    for (const s of signals) process.off(s, onSignal);
  }
}
