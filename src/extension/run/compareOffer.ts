import * as vscode from 'vscode';
import { dirname } from 'node:path';
import type { Services } from '../services';
import { previousRunFolder } from './previousRun';

/**
 * "Profile ready": when an earlier run profiled the same program, offer to compare with it, the
 * step after "fix, profile again": run folder with run folder, as each is read. Does not wait for the answer.
 */
export async function offerComparison(s: Services, program: string, runDir: string): Promise<void> {
  const previous = await previousRunFolder(dirname(runDir), runDir, program).catch(() => undefined);
  if (!previous) return;
  s.log.info(`previous run of ${program}: ${previous}`);
  const compare = vscode.l10n.t('Compare with Previous Run');
  void vscode.window
    .showInformationMessage(vscode.l10n.t('Node Flame: the profile is ready. An earlier run of this program exists.'), compare)
    .then((b) => {
      if (b === compare) void vscode.commands.executeCommand('nodeFlame.compareProfiles', previous, runDir);
    });
}
