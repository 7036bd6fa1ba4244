import * as vscode from 'vscode';
import { notBuiltYet, type Services } from '../services';

export function registerProfileCommands(_s: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('nodeFlame.profile', () => notBuiltYet(vscode.l10n.t('Profile Node App'))),
    vscode.commands.registerCommand('nodeFlame.stop', () => notBuiltYet(vscode.l10n.t('Stop Profiling'))),
  ];
}
