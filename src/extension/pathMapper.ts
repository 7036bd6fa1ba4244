import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import { createPathMapper, type PathMapper } from '../core/pathMapping';

/** `nodeFlame.pathMapping` (with `${workspaceFolder}`) plus the workspace folders as roots for path-tail matches. */
export function workspacePathMapper(folders: readonly vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders ?? []): PathMapper {
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folders[0]?.uri);
  const raw = cfg.get<Record<string, string>>('pathMapping') ?? {};
  const ws = folders[0]?.uri.fsPath ?? '';
  const rules = Object.entries(raw)
    .filter(([, local]) => typeof local === 'string')
    .map(([remoteRoot, local]) => {
      const expanded = local.replace(/\$\{workspaceFolder\}/g, ws);
      return { remoteRoot, localRoot: isAbsolute(expanded) || !ws ? expanded : join(ws, expanded) };
    });
  return createPathMapper({ rules, roots: folders.map((f) => f.uri.fsPath) });
}
