import * as vscode from 'vscode';
import { clampSetting } from '../../core/settingLimits';
import { basename, dirname, join } from 'node:path';
import type { Services, LoadedProfile } from '../services';
import type { LaunchMode } from '../../launch/run/modes';
import type { LaunchTarget } from '../../launch/target';
import { isTypeScriptFile } from '../../launch/commandLine';
import { findLoader, type LoaderSetting } from '../../launch/loader';
import { createRunDir, removeIfEmpty } from '../../launch/run/runFolder';
import { ProfileSession } from '../../launch/launcher';
import type { RunResult } from '../../launch/launchOptions';
import { LaunchError } from '../../launch/errors';
import { cleanupPerfMaps } from '../../launch/perf';
import { RunTerminal } from './terminal';
import { showStopItem, stateMessage } from './status';
import { runsRoot } from './runsRoot';
import { offerComparison } from './compareOffer';
import { watchLiveRun } from './liveView';

export interface RunOutcome {
  result?: RunResult;
  loaded?: LoadedProfile;
  error?: string;
}

/**
 * Runs the target under the profiler in a terminal, then opens the profile. `setCurrentSession` is
 * the activation side's holder (run/current.ts), told of the live session so Stop can find it.
 */
export async function profileTarget(
  s: Services,
  folder: vscode.WorkspaceFolder | undefined,
  target: LaunchTarget,
  mode: LaunchMode,
  setCurrentSession: (session: ProfileSession | undefined) => void,
): Promise<RunOutcome> {
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folder?.uri);
  const loaderSetting = cfg.get<LoaderSetting>('loader', 'auto');
  const loader =
    isTypeScriptFile(target.program) && !target.loader ? findLoader(dirname(target.program), loaderSetting, undefined) : undefined;
  if (isTypeScriptFile(target.program) && !target.loader && !loader && loaderSetting !== 'none') {
    s.log.warn(`no TypeScript loader (tsx, ts-node) found above ${target.program}`);
  }
  const runDir = createRunDir(runsRoot(s.context, folder), mode);
  const loadCommand = cfg.get<string>('loadCommand', '').trim() || undefined;
  const port = clampSetting('waitForPort', cfg.get('waitForPort')) || undefined;
  const label = target.command ? target.command.join(' ') : basename(target.program);
  let progress: vscode.Progress<{ message?: string }> | undefined;
  const session = new ProfileSession({
    target,
    mode,
    runDir,
    preloadPath: join(s.context.extensionPath, 'dist', 'preload-stop.js'),
    loader: loader?.args,
    loadCommand,
    loadCwd: folder?.uri.fsPath ?? target.cwd,
    waitForPort: port,
    portTimeoutMs: clampSetting('waitForPortTimeout', cfg.get('waitForPortTimeout')) * 1000,
    stopTimeoutMs: clampSetting('stopTimeout', cfg.get('stopTimeout')) * 1000,
    perfFrequency: clampSetting('perf.frequency', cfg.get('perf.frequency')) || undefined,
    heapInterval: clampSetting('heapSamplingInterval', cfg.get('heapSamplingInterval')),
    heapSamples: cfg.get<string>('heapSamples', 'allocated') === 'live' ? 'live' : 'allocated',
    trackRequests: cfg.get<boolean>('trackRequests', true) !== false,
    // perf too: its one perf script follows the recording (launch/perfStream.ts); test live-perf-express: the /auth
    // handler named app.js:23 in a live view and the final one (a sliced run once drew it as app.js:1 in an e2e).
    live: true,
    onOutput: (text, kind) => terminal.write(text, kind === 'info' ? 'info' : kind === 'load' ? 'load' : undefined),
    onState: (st) => progress?.report({ message: stateMessage(st, session.port) }),
  });
  const terminal = new RunTerminal(vscode.l10n.t('Node Flame: {0} ({1})', label, mode), {
    write: (d) => session.write(d),
    stop: () => session.stop('user'),
  });
  terminal.terminal.show(true);
  setCurrentSession(session);
  const stopItem = showStopItem({
    id: 'nodeFlame.stop',
    name: vscode.l10n.t('Node Flame profiling'),
    text: vscode.l10n.t('Profiling… Stop'),
    tooltip: vscode.l10n.t('Stop {0}: the app exits gracefully, the profile is written and opens.', label),
    command: 'nodeFlame.stop',
  });
  s.log.info(`profile ${mode}: ${target.program} → ${runDir}`);
  // Its page loads while the app runs (a second per webview in code-server), not after the app exits.
  const reserved = await s.viewer
    .reserve(label, 'nodeFlame.stop', { live: true })
    .catch((e: Error) => void s.log.warn(`no panel reserved: ${e.message}`));
  let marks = 0;
  const live = reserved?.live
    ? watchLiveRun(s, runDir, reserved, {
        stop: () => session.stop('user'),
        mark: (label?: string) => session.markMoment(label ?? vscode.l10n.t('mark {0}', String(++marks))),
      })
    : undefined;

  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Node Flame: profiling {0}', label), cancellable: true },
      async (p, token) => {
        progress = p;
        p.report({ message: stateMessage(loadCommand ? 'waiting-for-port' : 'running') });
        token.onCancellationRequested(() => session.stop('user'));
        let result: RunResult;
        try {
          result = await session.run();
        } catch (e) {
          removeIfEmpty(runDir);
          if (!(e instanceof LaunchError)) throw e;
          terminal.finish(e.message);
          return { error: e.message };
        } finally {
          setCurrentSession(undefined);
          stopItem.dispose();
          await live?.stop();
        }
        s.log.info(
          `run ended: ${result.stoppedBy}, exit ${result.exitCode ?? result.signal}, ${result.durationMs} ms, profiles: ${result.profiles.join(', ') || 'none'}`,
        );
        terminal.finish(vscode.l10n.t('Node Flame: the run has ended ({0}). Press any key to close this terminal.', result.runDir));
        const main = result.profiles[0];
        try {
          if (!main) return { result, error: result.error?.message };
          p.report({ message: stateMessage('done') });
          // The run folder opens as the run: every process merged, its requests, its lost profiles (its first file
          // alone would leave out every child, and a server's Requests).
          const what = result.runDir;
          const loaded = await (reserved ? reserved.open(what, { runDir: what }) : s.viewer.open(what, { runDir: what }));
          live?.forget();
          void offerComparison(s, target.program, result.runDir);
          sayUnnamed(loaded?.profile.meta.unnamed);
          return { result, loaded, error: result.error?.message };
        } catch (e) {
          // The user cancelled reading a big profile: the run folder keeps it for later.
          if (e instanceof vscode.CancellationError) return { result, error: result.error?.message };
          const msg = vscode.l10n.t('Node Flame could not process {0}: {1}', main ?? result.runDir, (e as Error).message);
          s.log.error(msg);
          return { result, error: result.error ? result.error.message + '\n' + msg : msg };
        } finally {
          await cleanupPerfMaps(result.perfPids).catch(() => undefined);
        }
      },
    );
  } finally {
    setCurrentSession(undefined);
    stopItem.dispose();
    await live?.stop();
    live?.forget();
    reserved?.release();
  }
}

/** Frames that could not be named are said where the user looks when the run ends, not only in the Summary. */
function sayUnnamed(unnamed: string[] | undefined): void {
  if (!unnamed?.length) return;
  void vscode.window.showWarningMessage(vscode.l10n.t('Node Flame: some frames of this run could not be named. {0}', unnamed.join(' · ')));
}
