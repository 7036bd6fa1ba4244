// Loaded on the first "Profile Running Process…": the inspector client (ws) stays out of activation.
import * as vscode from 'vscode';
import { clampSetting } from '../../core/settingLimits';
import type { LoadedProfile, Services } from '../services';
import {
  AttachSession,
  InspectorError,
  LIVE_ATTACH_CHUNK_MS,
  applyScriptSourceMaps,
  liveAttach,
  makeRunDir,
  receivedProfile,
  runLoadCommand,
  saveAttachRun,
  type AttachResult,
  type StoppedBy,
} from '../../launch/inspector';
import { mapProfilePaths } from '../../core/pathMapping';
import { workspacePathMapper } from '../pathMapper';
import { rm } from 'node:fs/promises';
import { showStopItem } from '../run/status';
import { watchLiveRun } from '../run/liveView';
import { runsRoot } from '../run/runsRoot';
import type { AttachTarget } from './attachPick';
import type { RunEvent } from '../../launch/run/runFolder';
export { pickAttachTarget, targetAt } from './attachPick';

export interface Running {
  stop(reason: StoppedBy): void;
}

/** Connects, profiles until Stop / duration / load end, saves the run and shows it. */
export async function profile(services: Services, target: AttachTarget, slot: Running): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folders[0]?.uri);
  const samplingIntervalUs = clampSetting('attach.samplingInterval', cfg.get('attach.samplingInterval'));
  const durationS = clampSetting('attach.duration', cfg.get('attach.duration'));
  const loadCommand = (cfg.get<string>('loadCommand') ?? '').trim();
  const where = target.pid
    ? `${target.title || target.url} (pid ${target.pid}, ${target.address})`
    : `${target.title || target.url} (${target.address})`;
  services.log.info(`attach: connecting to ${where} ${target.webSocketDebuggerUrl}`);

  const heap =
    cfg.get<string>('attach.profile') === 'heap'
      ? {
          samplingInterval: clampSetting('heapSamplingInterval', cfg.get('heapSamplingInterval')),
          samples: cfg.get<string>('heapSamples') === 'live' ? ('live' as const) : ('allocated' as const),
        }
      : undefined;
  // Watched live, as a launched run is: the run folder is made first and the session's pieces (a CPU profile's, one
  // a second) or its heap profile so far (replaced each second) go into it for the live view.
  const dir = await makeRunDir(runsRoot(services.context, folders[0]));
  const live = liveAttach(dir, Date.now(), heap);
  let session: AttachSession;
  try {
    session = await AttachSession.start(target, {
      samplingIntervalUs,
      heap,
      chunkMs: LIVE_ATTACH_CHUNK_MS,
      ...(heap ? { onHeap: live.onHeap } : { onPart: live.onPart }),
    });
  } catch (e) {
    // Nothing was recorded: the folder holds only the live run's start.
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
  let stoppedBy: StoppedBy = 'user';
  let resolveStop!: () => void;
  const stopped = new Promise<void>((r) => (resolveStop = r));
  slot.stop = (reason) => {
    stoppedBy = reason;
    resolveStop();
  };
  session.onLost(() => slot.stop('lost'));
  const timer = durationS > 0 ? setTimeout(() => slot.stop('duration'), durationS * 1000) : undefined;

  let load: ReturnType<typeof runLoadCommand> | undefined;
  let loadExit: number | null | undefined;
  if (loadCommand && !vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'The load command (nodeFlame.loadCommand) is not run in an untrusted workspace. Profiling continues; send the load yourself, then press Stop.',
      ),
    );
  } else if (loadCommand) {
    const cwd = folders[0]?.uri.fsPath ?? process.cwd();
    services.log.info(`attach: load command in ${cwd}: ${loadCommand}`);
    load = runLoadCommand(loadCommand, { cwd, onLine: (line) => void (line.trim() && services.log.info(`[load] ${line}`)) });
    void load.done.then((code) => {
      loadExit = code;
      services.log.info(`attach: load command exited with ${code}`);
      slot.stop('load');
    });
  }

  // Its page loads while the process is profiled (a second per webview in code-server), not after.
  const reserved = await services.viewer
    .reserve(target.title || target.url, 'nodeFlame.attach.stop', { live: true })
    .catch((e: Error) => void services.log.warn(`no panel reserved: ${e.message}`));
  const bar = showStopItem({
    id: 'nodeFlame.attach',
    name: vscode.l10n.t('Node Flame: attached profiling'),
    text: vscode.l10n.t('Profiling (attached)… Stop'),
    tooltip: vscode.l10n.t('Stop profiling {0} and open the flame graph', where),
    command: 'nodeFlame.attach.stop',
  });
  let marks = 0;
  const watch = reserved?.live
    ? watchLiveRun(services, dir, reserved, {
        stop: () => slot.stop('user'),
        mark: (label?: string) => live.mark(label ?? vscode.l10n.t('mark {0}', String(++marks))),
      })
    : undefined;

  let result: AttachResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Node Flame: profiling {0}', where), cancellable: true },
      async (progress, token) => {
        // Cancel here means "stop now": what was recorded is kept and opened, like the Stop button.
        token.onCancellationRequested(() => slot.stop('user'));
        const started = Date.now();
        const tick = () => {
          const s = Math.round((Date.now() - started) / 1000);
          progress.report({
            message:
              durationS > 0
                ? vscode.l10n.t(
                    '{0} s of {1} s — Cancel or the status bar Stop ends it and opens the profile',
                    String(s),
                    String(durationS),
                  )
                : vscode.l10n.t('{0} s — Cancel or the status bar Stop ends it and opens the profile', String(s)),
          });
        };
        tick();
        const ticker = setInterval(tick, 1000);
        try {
          await stopped;
        } finally {
          clearInterval(ticker);
        }
        progress.report({ message: vscode.l10n.t('receiving the profile…') });
        return session.stop();
      },
    );
  } catch (e) {
    await watch?.stop();
    watch?.forget();
    reserved?.release();
    throw e;
  } finally {
    clearTimeout(timer);
    load?.kill();
    bar.dispose();
  }
  try {
    await watch?.stop();
    await showResult(services, result, {
      target,
      stoppedBy,
      samplingIntervalUs,
      loadCommand: load ? loadCommand : undefined,
      loadExit: () => loadExit,
      show: reserved?.show,
      dir,
      events: live.events,
    });
  } finally {
    watch?.forget();
    reserved?.release();
  }
}

interface Recorded {
  target: AttachTarget;
  stoppedBy: StoppedBy;
  samplingIntervalUs: number;
  loadCommand?: string;
  /** The load command's exit code, once it has exited (it may still be going when Stop was pressed). */
  loadExit: () => number | null | undefined;
  /** Where to show the profile (the panel reserved for it); a new panel otherwise. */
  show?: (p: LoadedProfile) => Promise<void>;
  /** The run folder made for a live attach (a new one otherwise), and the marks dropped in it. */
  dir?: string;
  events?: RunEvent[];
}

/** Saves the run, maps its paths and source maps, and shows it. */
async function showResult(services: Services, result: AttachResult, r: Recorded): Promise<void> {
  const { target, stoppedBy, samplingIntervalUs, loadCommand } = r;
  const folders = vscode.workspace.workspaceFolders ?? [];
  const received = receivedProfile(result);
  const mapPath = workspacePathMapper(folders);
  const dir = r.dir ?? (await makeRunDir(runsRoot(services.context, folders[0])));
  const saved = await saveAttachRun(dir, received, {
    events: r.events,
    target,
    stoppedBy,
    samplingIntervalUs,
    loadCommand,
    loadExitCode: r.loadExit(),
    mapPath,
  });
  const mappedCount = Object.keys(saved.mapped).length;
  services.log.info(
    `attach: ${result.samples} samples in ${result.durationMs} ms, stopped by ${stoppedBy}; saved ${saved.profilePath}; ${mappedCount} remote paths mapped`,
  );

  const loaded = await services.store.load(saved.profilePath, { runDir: dir });
  await applyScriptSourceMaps(loaded.profile, result.sourceMaps, saved.mapped, mapPath);
  mapProfilePaths(loaded.profile, mapPath);
  services.store.setActive(loaded);
  await (r.show ? r.show(loaded) : services.viewer.show(loaded));
  if (result.lost) void vscode.window.showWarningMessage(result.lost.message);
}

/** In words, with Try Again; an inspector's own message is already one. */
export function showError(services: Services, e: unknown): void {
  const msg =
    e instanceof InspectorError ? e.message : vscode.l10n.t('Profiling the running process failed: {0}', (e as Error).message ?? String(e));
  services.log.error(`attach: ${msg}`);
  const again = vscode.l10n.t('Try Again');
  void vscode.window.showErrorMessage(msg, again).then((a) => a === again && vscode.commands.executeCommand('nodeFlame.attach'));
}
