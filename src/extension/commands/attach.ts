import * as vscode from 'vscode';
import type { Services } from '../services';
import type { AttachTarget } from './attachPick';
import type { Running } from './attachRun';

/** "Profile Running Process…": pick → connect → profile until Stop / duration / load end → save → show. */
export function registerAttachCommands(services: Services): vscode.Disposable[] {
  let running: Running | undefined;

  const attach = async (address?: unknown) => {
    if (running) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Node Flame is already profiling a process. Stop it first.'));
      return;
    }
    const run = await import('./attachRun');
    let target: AttachTarget | undefined;
    try {
      target = typeof address === 'string' && address ? await run.targetAt(address) : await run.pickAttachTarget();
    } catch (e) {
      return run.showError(services, e);
    }
    if (!target) return;
    const slot: Running = { stop: () => undefined };
    running = slot;
    try {
      await run.profile(services, target, slot);
    } catch (e) {
      run.showError(services, e);
    } finally {
      running = undefined;
    }
  };

  return [
    vscode.commands.registerCommand('nodeFlame.attach', attach),
    // Not in the palette: the status bar's Stop button while attached.
    vscode.commands.registerCommand('nodeFlame.attach.stop', () => running?.stop('user')),
  ];
}
