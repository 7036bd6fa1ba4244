import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { Services } from '../services';
import { hotspotState } from '../editor';

/** "Open Profile…" (a file picker, or the file it is invoked on) and "Clear Hot Spots". */
export function registerOpenProfileCommands(services: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('nodeFlame.openProfile', async (uri?: vscode.Uri) => {
      if (!(uri instanceof vscode.Uri)) {
        void import('../bigImport').then((m) => m.prepareImportWorker());
        const picked = await vscode.window.showOpenDialog({
          canSelectMany: false,
          openLabel: vscode.l10n.t('Open Profile'),
          title: vscode.l10n.t('Open a V8 log, .cpuprofile, perf output, pprof or folded stacks'),
          filters: {
            [vscode.l10n.t('Profiles')]: ['cpuprofile', 'heapprofile', 'log', 'folded', 'perf', 'txt', 'data', 'pprof', 'gz', 'pb', 'json'],
            [vscode.l10n.t('All files')]: ['*'],
          },
        });
        uri = picked?.[0];
      }
      if (!uri) return;
      try {
        await services.viewer.open(uri.fsPath);
      } catch (e) {
        if (e instanceof vscode.CancellationError) return;
        services.log.error(`open ${uri.fsPath}: ${(e as Error).message}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('Node Flame cannot open {0}: {1}', basename(uri.fsPath), (e as Error).message));
      }
    }),
    vscode.commands.registerCommand('nodeFlame.clearHotSpots', () => hotspotState(services).clear()),
  ];
}
