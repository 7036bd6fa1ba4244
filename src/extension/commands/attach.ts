import * as vscode from 'vscode';
import { notBuiltYet, type Services } from '../services';

export function registerAttachCommands(_s: Services): vscode.Disposable[] {
  return [vscode.commands.registerCommand('nodeFlame.attach', () => notBuiltYet(vscode.l10n.t('Profile Running Process')))];
}
