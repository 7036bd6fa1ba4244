import * as vscode from 'vscode';
import type { Services } from '../services';
import type { RunOutcome } from '../run/profileRun';
import { currentSession, setCurrentSession } from '../run/current';

function pickFolder(): vscode.WorkspaceFolder | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  return (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
}

/** Profiling runs the workspace's code, so it waits for trust; opening profiles never does. */
async function requireTrust(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const manage = vscode.l10n.t('Manage Workspace Trust');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t(
      "Node Flame: profiling runs this workspace's code, so it is not available in an untrusted workspace. Trust the workspace to profile; opening existing profiles works without it.",
    ),
    manage,
  );
  if (choice === manage) await vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}

async function profile(s: Services): Promise<RunOutcome | undefined> {
  if (!(await requireTrust())) return undefined;
  const running = currentSession();
  if (running?.running) {
    const stop = vscode.l10n.t('Stop Profiling');
    if ((await vscode.window.showInformationMessage(vscode.l10n.t('Node Flame: an app is already being profiled.'), stop)) === stop)
      running.stop('user');
    return undefined;
  }
  const folder = pickFolder();
  // The launcher (child processes, perf, loaders) loads on the first run, not at activation.
  const [{ chooseMode, chooseTarget }, { profileTarget }, { LaunchError }] = await Promise.all([
    import('../run/choose'),
    import('../run/profileRun'),
    import('../../launch/errors'),
  ]);
  try {
    const target = await chooseTarget(s.context, folder);
    if (!target) return undefined;
    const mode = await chooseMode(s.context, folder);
    if (!mode) return undefined;
    const outcome = await profileTarget(s, folder, target, mode, setCurrentSession);
    if (outcome.error) {
      const openFolder = vscode.l10n.t('Open Run Folder');
      const buttons = outcome.result ? [openFolder] : [];
      void vscode.window.showErrorMessage(`Node Flame: ${outcome.error}`, ...buttons).then((b) => {
        if (b === openFolder && outcome.result)
          void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(outcome.result.runDir));
      });
    }
    return outcome;
  } catch (e) {
    if (e instanceof LaunchError) {
      void vscode.window.showErrorMessage(`Node Flame: ${e.message}`);
      return { error: e.message };
    }
    throw e;
  }
}

export function registerProfileCommands(s: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('nodeFlame.profile', () => profile(s)),
    vscode.commands.registerCommand('nodeFlame.stop', () => {
      const session = currentSession();
      if (session?.running) session.stop('user');
      else void vscode.window.showInformationMessage(vscode.l10n.t('Node Flame: no app is being profiled.'));
    }),
    // The extension host going away must not leave the profiled app behind.
    { dispose: () => currentSession()?.stop('user') },
  ];
}
