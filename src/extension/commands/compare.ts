import * as vscode from 'vscode';
import type { Services } from '../services';

export function registerCompareCommands(s: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('nodeFlame.compareProfiles', async (before?: unknown, after?: unknown) => {
      const { compareProfiles } = await import('./compareProfiles');
      await compareProfiles(s, typeof before === 'string' ? before : undefined, typeof after === 'string' ? after : undefined);
    }),
  ];
}
