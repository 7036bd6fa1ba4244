import * as vscode from 'vscode';
import { notBuiltYet, type Services } from '../services';

export function registerOpenProfileCommands(_s: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('nodeFlame.openProfile', () => notBuiltYet(vscode.l10n.t('Open Profile'))),
    vscode.commands.registerCommand('nodeFlame.clearHotSpots', () => notBuiltYet(vscode.l10n.t('Clear Hot Spots'))),
  ];
}
