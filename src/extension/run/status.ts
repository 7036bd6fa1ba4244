import * as vscode from 'vscode';
import type { SessionState } from '../../launch/session';

/** "Profiling… Stop" in the status bar while a run is live; clicking it stops the app. */
export function showStopItem(label: string): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('nodeFlame.stop', vscode.StatusBarAlignment.Left, 1000);
  item.name = vscode.l10n.t('Node Flame profiling');
  item.text = `$(debug-stop) ${vscode.l10n.t('Profiling… Stop')}`;
  item.tooltip = vscode.l10n.t('Stop {0}: the app exits gracefully, the profile is written and opens.', label);
  item.command = 'nodeFlame.stop';
  item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  item.show();
  return item;
}

export function stateMessage(state: SessionState, port?: number): string {
  switch (state) {
    case 'starting':
      return vscode.l10n.t('Starting the app…');
    case 'waiting-for-port':
      return vscode.l10n.t('Waiting for the app to listen…');
    case 'running':
      return vscode.l10n.t('Profiling. Stop when done (Cancel or the status bar).');
    case 'load':
      return port ? vscode.l10n.t('Running the load command against port {0}…', port) : vscode.l10n.t('Running the load command…');
    case 'stopping':
      return vscode.l10n.t('Stopping the app and writing the profile…');
    case 'done':
      return vscode.l10n.t('Processing the profile…');
  }
}
