import * as vscode from 'vscode';
import { join } from 'node:path';
import { RUNS_DIR } from '../../launch/run/runsDir';

/**
 * Parent of the run folders: `.nodeflame/` in the workspace folder, or this workspace's extension storage. In
 * Restricted Mode (an attach may run there) always the storage: the repository controls its `.nodeflame/`,
 * which may be a symlink to a folder elsewhere.
 */
export function runsRoot(context: vscode.ExtensionContext, folder: vscode.WorkspaceFolder | undefined): string {
  const where = vscode.workspace.getConfiguration('nodeFlame', folder?.uri).get<string>('runFolder', 'workspace');
  if (vscode.workspace.isTrusted && where !== 'extensionStorage' && folder && folder.uri.scheme === 'file')
    return join(folder.uri.fsPath, RUNS_DIR);
  const storage = context.storageUri ?? context.globalStorageUri;
  return join(storage.fsPath, 'runs');
}
