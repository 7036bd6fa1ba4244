import * as vscode from 'vscode';
import type { SessionState } from '../../launch/launchOptions';

/** What a Stop item says and does; the texts come localized. */
export interface StopItem {
  id: string;
  name: string;
  text: string;
  tooltip: string;
  command: string;
}

/** "Profiling… Stop" in the status bar while a run is live (launched or attached); clicking it stops the run. */
export function showStopItem(o: StopItem): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem(o.id, vscode.StatusBarAlignment.Left, 1000);
  item.name = o.name;
  item.text = `$(debug-stop) ${o.text}`;
  item.tooltip = o.tooltip;
  item.command = o.command;
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
