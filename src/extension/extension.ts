import * as vscode from 'vscode';
import * as l10n from '@vscode/l10n';
import { ProfileStore, type Services } from './services';
import { createViewer } from './viewer';
import { registerProfileCommands } from './commands/profile';
import { registerOpenProfileCommands } from './commands/openProfile';
import { registerCompareCommands } from './commands/compare';
import { registerAttachCommands } from './commands/attach';
import { registerEditorIntegration } from './editor';

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  // Core and launch code speak through @vscode/l10n: hand it the bundle VS Code chose.
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
  const log = vscode.window.createOutputChannel('Node Flame', { log: true });
  const store = new ProfileStore();
  const { viewer, disposables } = createViewer(context, () => services);
  const services: Services = { context, store, viewer, log };
  context.subscriptions.push(
    log,
    store,
    ...disposables,
    ...registerProfileCommands(services),
    ...registerOpenProfileCommands(services),
    ...registerCompareCommands(services),
    ...registerAttachCommands(services),
    ...registerEditorIntegration(services),
  );
  log.info(`activated in ${(performance.now() - t0).toFixed(1)} ms`);
}

export function deactivate(): void {}
