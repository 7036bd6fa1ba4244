import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { LoadedProfile, Services } from '../services';
import { functionName } from '../editor/format';
import type { RunInfo } from './runs';
import { RUNS_DIR, runFolderOf } from '../../launch/run/runsDir';

// Run listing and summaries (and the model they use) load when the view first asks, not at activation.
const loadRuns = () => import('./runs');

export const HISTORY_VIEW = 'nodeFlame.history';

class RunNode {
  constructor(
    readonly run: RunInfo,
    readonly folder: vscode.WorkspaceFolder,
  ) {}
}
class FileNode {
  constructor(
    readonly run: RunInfo,
    readonly path: string,
  ) {}
}
type Node = RunNode | FileNode;

function seconds(ms: number): string {
  return vscode.l10n.t('{0} s', new Intl.NumberFormat(vscode.env.language, { maximumFractionDigits: 1 }).format(ms / 1000));
}

/** Past runs from every workspace folder's `.nodeflame/`, newest first. */
class HistoryProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  /** `firstShown` runs when the view first asks for its runs. */
  constructor(private readonly firstShown: () => void) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node instanceof RunNode) return node.run.profiles.length > 1 ? node.run.profiles.map((p) => new FileNode(node.run, p)) : [];
    if (node) return [];
    this.firstShown();
    const folders = vscode.workspace.workspaceFolders ?? [];
    const { listRuns } = await loadRuns();
    // One folder after the other: each lists its runs one at a time (see listRuns).
    const all: RunNode[] = [];
    for (const f of folders) for (const r of await listRuns(f.uri.fsPath)) all.push(new RunNode(r, f));
    return all.sort((a, b) => (b.run.time?.getTime() ?? 0) - (a.run.time?.getTime() ?? 0));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof FileNode) {
      const item = new vscode.TreeItem(basename(node.path), vscode.TreeItemCollapsibleState.None);
      item.resourceUri = vscode.Uri.file(node.path);
      item.contextValue = 'nodeFlame.runProfile';
      item.command = { command: 'nodeFlame.history.open', title: vscode.l10n.t('Open'), arguments: [node] };
      return item;
    }
    const r = node.run;
    const label = r.time ? r.time.toLocaleString(vscode.env.language, { dateStyle: 'medium', timeStyle: 'medium' }) : r.name;
    const item = new vscode.TreeItem(
      label,
      r.profiles.length > 1 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    const parts = [
      r.mode,
      r.durationMs !== undefined ? seconds(r.durationMs) : undefined,
      r.summary?.topFunction ? functionName(r.summary.topFunction.name) : undefined,
    ];
    if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) parts.push(node.folder.name);
    if (r.runJsonTooBig !== undefined)
      parts.push(vscode.l10n.t('run.json not read ({0} MB, too big)', (r.runJsonTooBig / 2 ** 20).toFixed(1)));
    item.description = parts.filter(Boolean).join(' · ');
    const tip = new vscode.MarkdownString();
    tip.appendText(r.command ?? r.name);
    tip.appendMarkdown('\n\n');
    if (r.exitCode !== undefined) tip.appendText(vscode.l10n.t('Exit code: {0}', String(r.exitCode)) + '\n\n');
    if (r.summary?.topFunction) {
      const t = r.summary.topFunction;
      tip.appendText(
        vscode.l10n.t(
          'Top function: {0} ({1} self)',
          `${functionName(t.name)}${t.file ? ` ${basename(t.file)}:${t.line}` : ''}`,
          `${(t.self * 100).toFixed(1)}%`,
        ) + '\n\n',
      );
    }
    tip.appendText(r.dir);
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(r.profiles.length ? 'flame' : 'warning');
    item.contextValue = r.profiles.length ? 'nodeFlame.run' : 'nodeFlame.runEmpty';
    item.id = r.dir;
    if (r.profiles.length) item.command = { command: 'nodeFlame.history.open', title: vscode.l10n.t('Open'), arguments: [node] };
    return item;
  }
}

function profileOf(node: Node | undefined): string | undefined {
  if (node instanceof FileNode) return node.path;
  return node?.run.wholeRun ? node.run.dir : node?.run.profiles[0];
}

async function openPath(services: Services, path: string): Promise<LoadedProfile | undefined> {
  try {
    // A whole run is opened by its folder (see RunInfo.wholeRun).
    return await services.viewer.open(path);
  } catch (e) {
    if (!(e instanceof vscode.CancellationError))
      void vscode.window.showErrorMessage(vscode.l10n.t('Node Flame cannot open {0}: {1}', basename(path), (e as Error).message));
    return undefined;
  }
}

export function registerHistory(services: Services): vscode.Disposable[] {
  let pending: NodeJS.Timeout | undefined;
  const soon = (): void => {
    clearTimeout(pending);
    pending = setTimeout(() => provider.refresh(), 300);
  };
  // Watching costs several ms per folder: it starts when the view first shows, not at activation. A
  // view that never showed needs no refresh; the first one lists the runs afresh anyway.
  const watchers: vscode.FileSystemWatcher[] = [];
  let watching = false;
  const watch = (): void => {
    if (watching) return;
    watching = true;
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(f, `${RUNS_DIR}/**`));
      w.onDidCreate(soon);
      w.onDidDelete(soon);
      w.onDidChange(soon);
      watchers.push(w);
    }
  };
  const provider = new HistoryProvider(watch);
  const view = vscode.window.createTreeView(HISTORY_VIEW, { treeDataProvider: provider, canSelectMany: true, showCollapseAll: false });
  const summarized = new Set<string>();
  const cacheSummary = async (p: LoadedProfile | undefined): Promise<void> => {
    const dir = p && (p.runDir ?? runFolderOf(p.path));
    // Restricted Mode: nothing is written into the workspace's run folders (a repository controls them).
    // A live run's profile so far: its run.json is the launcher's to write when the run ends.
    if (!p || p.live || !dir || summarized.has(dir) || !vscode.workspace.isTrusted) return;
    summarized.add(dir);
    try {
      const { saveSummary, summarize } = await loadRuns();
      if (await saveSummary(dir, summarize(p.profile), vscode.workspace.isTrusted)) provider.refresh();
    } catch (e) {
      services.log.warn(`could not cache the run summary in ${dir}: ${(e as Error).message}`);
    }
  };

  const compare = async (node?: Node, selected?: Node[]): Promise<void> => {
    const picked = (selected?.length ? selected : node ? [node] : [])
      .map((n) => ({ path: profileOf(n), time: n.run.time?.getTime() ?? 0 }))
      .filter((x): x is { path: string; time: number } => !!x.path);
    if (picked.length === 1) {
      const runs = (await provider.getChildren()).filter(
        (n): n is RunNode => n instanceof RunNode && !!n.run.profiles.length && n.run.profiles[0] !== picked[0].path,
      );
      const other = await vscode.window.showQuickPick(
        runs.map((n) => ({
          label: n.run.time?.toLocaleString(vscode.env.language) ?? n.run.name,
          description: [n.run.mode, n.run.summary?.topFunction?.name].filter(Boolean).join(' · '),
          node: n,
        })),
        { placeHolder: vscode.l10n.t('Compare with which run?') },
      );
      if (!other) return;
      picked.push({ path: other.node.run.profiles[0], time: other.node.run.time?.getTime() ?? 0 });
    }
    if (picked.length !== 2) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Select two runs to compare.'));
      return;
    }
    picked.sort((a, b) => a.time - b.time);
    await vscode.commands.executeCommand('nodeFlame.compareProfiles', picked[0].path, picked[1].path);
  };

  return [
    view,
    services.store.onDidChangeActive((p) => void cacheSummary(p)),
    vscode.commands.registerCommand('nodeFlame.history.refresh', () => provider.refresh()),
    vscode.commands.registerCommand('nodeFlame.history.open', async (node?: Node) => {
      const path = profileOf(node ?? view.selection[0]);
      if (path) await openPath(services, path);
    }),
    vscode.commands.registerCommand('nodeFlame.history.revealFolder', async (node?: Node) => {
      const n = node ?? view.selection[0];
      if (!n) return;
      const uri = vscode.Uri.file(n instanceof FileNode ? n.path : n.run.dir);
      // The OS file manager only exists where VS Code's UI runs; remotely, show it in the Explorer.
      await vscode.commands.executeCommand(vscode.env.remoteName ? 'revealInExplorer' : 'revealFileInOS', uri);
    }),
    vscode.commands.registerCommand('nodeFlame.history.delete', async (node?: Node, selected?: Node[]) => {
      const runs = [...new Set((selected?.length ? selected : node ? [node] : view.selection).map((n) => n.run))];
      if (!runs.length) return;
      const yes = vscode.l10n.t('Delete');
      const msg =
        runs.length === 1
          ? vscode.l10n.t('Delete the run {0} and its profiles?', runs[0].name)
          : vscode.l10n.t('Delete {0} runs and their profiles?', runs.length);
      if ((await vscode.window.showWarningMessage(msg, { modal: true }, yes)) !== yes) return;
      for (const r of runs) {
        const uri = vscode.Uri.file(r.dir);
        try {
          await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
        } catch {
          // No trash on this file system (remote, container): delete outright, as the user confirmed.
          await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false });
        }
        for (const p of services.store.all()) if (p.path.startsWith(r.dir)) services.store.remove(p.id);
      }
      provider.refresh();
    }),
    vscode.commands.registerCommand('nodeFlame.history.compare', compare),
    {
      dispose: () => {
        clearTimeout(pending);
        for (const w of watchers.splice(0)) w.dispose();
      },
    },
  ];
}
