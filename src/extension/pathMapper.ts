import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import { createPathMapper, type PathMapper, type PathMapperOptions } from '../core/pathMapping';
import { DEFAULT_PATH_OVERRIDES, DEFAULT_RESOLVE_LOCATIONS, type SourceMapOptions } from '../core/sourceMapPaths';

/** `nodeFlame.pathMapping` (with `${workspaceFolder}`) plus the workspace folders as roots for path-tail matches, as plain data for the import worker. */
export function workspacePathMapping(
  folders: readonly vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders ?? [],
): PathMapperOptions {
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folders[0]?.uri);
  const raw = cfg.get<Record<string, string>>('pathMapping') ?? {};
  const ws = folders[0]?.uri.fsPath ?? '';
  const rules = Object.entries(raw)
    .filter(([, local]) => typeof local === 'string')
    .map(([remoteRoot, local]) => {
      const expanded = local.replace(/\$\{workspaceFolder\}/g, ws);
      return { remoteRoot, localRoot: isAbsolute(expanded) || !ws ? expanded : join(ws, expanded) };
    });
  return { rules, roots: folders.map((f) => f.uri.fsPath) };
}

export function workspacePathMapper(folders: readonly vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders ?? []): PathMapper {
  return createPathMapper(workspacePathMapping(folders));
}

/** `nodeFlame.sourceMapPathOverrides` and `nodeFlame.resolveSourceMapLocations`, `${workspaceFolder}` the first folder. */
export function workspaceSourceMapOptions(
  folders: readonly vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders ?? [],
): Omit<SourceMapOptions, 'mapPath'> {
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folders[0]?.uri);
  const ws = folders[0]?.uri.fsPath;
  const overrides = cfg.get<Record<string, string>>('sourceMapPathOverrides') ?? { ...DEFAULT_PATH_OVERRIDES };
  const locations = cfg.get<string[] | null>('resolveSourceMapLocations', [...DEFAULT_RESOLVE_LOCATIONS]);
  const expand = (s: string) => (ws ? s.replace(/\$\{workspaceFolder\}/g, ws.replace(/\\/g, '/')) : s);
  return {
    // Configuration values are proxies, which cannot cross to the import worker: plain copies do.
    pathOverrides: Object.fromEntries(Object.entries(overrides).filter(([, v]) => typeof v === 'string')),
    resolveLocations: Array.isArray(locations) ? locations.filter((l) => typeof l === 'string').map(expand) : null,
    ...(ws ? { workspaceFolder: ws } : {}),
  };
}
