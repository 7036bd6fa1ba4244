import * as vscode from 'vscode';
import type { ProfileStore } from '../services';

export const SHOW_ACTIVE_COMMAND = 'nodeFlame.showActiveProfile';

/** Names the active profile; a click shows its flame graph. */
export function activeProfileStatus(store: ProfileStore): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem('nodeFlame.activeProfile', vscode.StatusBarAlignment.Left, 50);
  item.name = vscode.l10n.t('Node Flame: active profile');
  item.command = SHOW_ACTIVE_COMMAND;
  const update = (): void => {
    const p = store.active;
    if (!p) {
      item.hide();
      return;
    }
    item.text = `$(flame) ${p.label.replace(/\$\(/g, '$\u200b(')}`;
    item.tooltip = vscode.l10n.t('Active profile: {0} — hot spots in the editor come from it. Click to show its flame graph.', p.path);
    item.show();
  };
  update();
  return [item, store.onDidChangeActive(update)];
}
