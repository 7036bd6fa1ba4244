import * as vscode from 'vscode';
import { notBuiltYet, type Services } from '../services';

export function registerCompareCommands(_s: Services): vscode.Disposable[] {
  return [vscode.commands.registerCommand('nodeFlame.compareProfiles', () => notBuiltYet(vscode.l10n.t('Compare Profiles')))];
}
