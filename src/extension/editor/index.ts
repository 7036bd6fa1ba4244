import * as vscode from 'vscode';
import type { Services } from '../services';
import { HotspotState, SOURCE_SELECTOR } from './hotspotState';
import { HotFunctionLenses, REVEAL_COMMAND } from './codeLens';
import { LineHeat } from './heat';
import { FindingDiagnostics } from './diagnostics';
import { HotspotHover } from './hover';
import { SHOW_ACTIVE_COMMAND, activeProfileStatus } from './statusBar';
import { registerProfileEditors } from './customEditor';
import { registerHistory } from '../history/historyView';

const states = new WeakMap<Services, HotspotState>();

/** The one per-window state CodeLens, heat and hover read; "Clear Hot Spots" reaches it from its command. */
export function hotspotState(services: Services): HotspotState {
  let s = states.get(services);
  if (!s) {
    s = new HotspotState(services.store, services.log);
    states.set(services, s);
    services.context.subscriptions.push(s);
  }
  return s;
}

/** CodeLens, line heat, hovers, the active-profile status item, profile-file editors and the run history. */
export function registerEditorIntegration(services: Services): vscode.Disposable[] {
  const state = hotspotState(services);
  const heat = new LineHeat(state);
  const { store, viewer } = services;
  return [
    heat,
    new FindingDiagnostics(state, store, services.log),
    vscode.languages.registerCodeLensProvider(SOURCE_SELECTOR, new HotFunctionLenses(state, services.log)),
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, new HotspotHover(state)),
    ...activeProfileStatus(store),
    ...registerProfileEditors(services),
    ...registerHistory(services),
    vscode.commands.registerCommand(REVEAL_COMMAND, async (profileId?: string, frame?: number) => {
      const loaded = profileId ? store.get(profileId) : store.active;
      if (!loaded) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('Node Flame: that profile is no longer open. Open it again from the Node Flame history or with "Open Profile…".'),
        );
        return;
      }
      await viewer.show(loaded, typeof frame === 'number' ? { revealFrame: frame } : {});
    }),
    vscode.commands.registerCommand(SHOW_ACTIVE_COMMAND, async () => {
      if (store.active) await viewer.show(store.active);
    }),
    vscode.commands.registerCommand('nodeFlame.toggleHeat', () => {
      heat.toggle();
      // Clear Hot Spots hid everything; asking for heat again brings the active profile back.
      if (heat.isVisible && state.cleared) {
        state.cleared = false;
        state.refresh();
      }
    }),
  ];
}
