import * as vscode from 'vscode';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, sep } from 'node:path';
import { exportFormats, exportProfile, exportProfileData, getExporter } from '../../core/exporters';
import { sourceLines } from '../../core/namedFiles';
import type { LineReader } from '../../core/exporters/markdown';
import { diffToHtml, diffToJson, diffToText } from '../../core/exporters/diff';
import type { FunctionChange, Profile } from '../../core/model';
import type { LoadedProfile } from '../services';
import { runTimeFactsOf } from '../../launch/run/runTimeline';
import type { ViewerSession } from '../../core/viewer/viewerSession';

/** The order people share in: pictures and pages first, then files other tools open, then reports. */
const ORDER = ['svg', 'html', 'folded', 'cpuprofile', 'speedscope', 'pprof', 'markdown', 'json', 'text'];
/** The Export… picker's first row: the Markdown report to the clipboard, for a pull request or a coding assistant. */
const COPY_MARKDOWN = 'copy-markdown';

interface FormatItem extends vscode.QuickPickItem {
  format: string;
  extension: string;
}

function formatItems(): FormatItem[] {
  const known = exportFormats();
  const formats = [...ORDER.filter((f) => known.includes(f)), ...known.filter((f) => !ORDER.includes(f))];
  return formats.map((f) => {
    const e = getExporter(f)!;
    return { label: f, description: e.extension, detail: e.description, format: f, extension: e.extension };
  });
}

/** `isolate-0x…-v8.log` → `isolate-0x…-v8`: the saved file sits next to the profile with the format's extension. */
function stem(path: string): string {
  const b = basename(path);
  return b.slice(0, b.length - extname(b).length) || b;
}

async function saveAs(
  title: string,
  defaultPath: string,
  ext: string,
  write: (warn: (message: string) => void) => string | Uint8Array,
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const uri = await vscode.window.showSaveDialog({
    title,
    defaultUri: vscode.Uri.file(defaultPath),
    filters: { [ext.replace(/^\./, '').toUpperCase()]: [ext.split('.').pop()!] },
  });
  if (!uri) return undefined;
  try {
    const t0 = performance.now();
    const data = write((w) => {
      log.warn(`export: ${w}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Node Flame: {0}', w));
    });
    await writeFile(uri.fsPath, data);
    log.info(
      `export: ${uri.fsPath} (${data.length} ${typeof data === 'string' ? 'chars' : 'bytes'}, ${(performance.now() - t0).toFixed(0)} ms)`,
    );
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Node Flame could not export to {0}: {1}', uri.fsPath, (e as Error).message));
    return undefined;
  }
  const reveal = vscode.l10n.t('Reveal in File Explorer');
  void vscode.window.showInformationMessage(vscode.l10n.t('Node Flame: saved {0}', basename(uri.fsPath)), reveal).then((b) => {
    if (b === reveal) void vscode.commands.executeCommand('revealFileInOS', uri);
  });
  return uri.fsPath;
}

/**
 * Export… in a profile's viewer: pick a format, pick a file, write the profile as the viewer shows it (its picked
 * processes and transforms); an HTML page gets the whole profile and opens with them, as chips to undo.
 */
export async function exportProfileFromViewer(
  p: LoadedProfile,
  log: vscode.LogOutputChannel,
  session: ViewerSession,
): Promise<string | undefined> {
  const copy: FormatItem = {
    label: vscode.l10n.t('Copy as Markdown'),
    detail: vscode.l10n.t('findings and hot paths with their source lines, to the clipboard'),
    format: COPY_MARKDOWN,
    extension: '.md',
  };
  const item = await vscode.window.showQuickPick([copy, ...formatItems()], {
    title: vscode.l10n.t('Export {0} as…', p.label),
    matchOnDetail: true,
  });
  if (!item) return undefined;
  if (item.format === COPY_MARKDOWN) {
    await vscode.env.clipboard.writeText(
      exportProfile(session.shownProfile(), 'markdown', { source: p.label, readLine: workspaceLineReader() }),
    );
    void vscode.window.showInformationMessage(vscode.l10n.t('Node Flame: the report is on the clipboard as Markdown'));
    return undefined;
  }
  const target = join(dirname(p.path), stem(p.path) + item.extension);
  // The page's Timeline shows the run's markers and event-loop delay, as this viewer's does.
  const timeFacts = item.format === 'html' ? await runTimeFactsOf(session.profile, p.path, p.run) : undefined;
  const view = { transforms: session.transforms, threads: session.threads, range: session.range, routes: session.routes };
  return saveAs(
    vscode.l10n.t('Export profile'),
    target,
    item.extension,
    (warn) => exportProfileData(session.profile, item.format, { source: p.label, timeFacts, view, warn, root: workspaceFolderOf(p.path) }),
    log,
  );
}

/** Export… in the comparison viewer: the diff as an offline page, its JSON or its text table. */
export async function exportDiffFromViewer(
  before: LoadedProfile,
  after: LoadedProfile,
  changes: FunctionChange[],
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const items: (FormatItem & { write: (b: Profile, a: Profile) => string })[] = [
    {
      label: 'html',
      description: '.html',
      detail: vscode.l10n.t('differential flame graph and the table of changes, one offline page'),
      format: 'html',
      extension: '.html',
      write: (b, a) => diffToHtml(b, a, before.label, after.label, workspaceFolderOf(after.path)),
    },
    {
      label: 'json',
      description: '.json',
      detail: vscode.l10n.t('the changes as JSON'),
      format: 'json',
      extension: '.json',
      write: () => JSON.stringify(diffToJson(changes), null, 2) + '\n',
    },
    {
      label: 'text',
      description: '.txt',
      detail: vscode.l10n.t('the changes as a text table'),
      format: 'text',
      extension: '.txt',
      write: () => diffToText(changes, before.label, after.label),
    },
  ];
  const item = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Export the comparison as…') });
  if (!item) return undefined;
  const target = join(dirname(after.path), `diff-${stem(before.path)}-${stem(after.path)}${item.extension}`);
  return saveAs(vscode.l10n.t('Export comparison'), target, item.extension, () => item.write(before.profile, after.profile), log);
}

/** The workspace folder holding `path`, which an exported page's paths are shown relative to. */
function workspaceFolderOf(path: string): string | undefined {
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(path))?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** Quotes lines only of files in the workspace's folders (never a path a profile names elsewhere), each read once. */
function workspaceLineReader(): LineReader {
  const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath + sep);
  return sourceLines(
    (file) => roots.some((r) => file.startsWith(r)),
    4 * 1024 * 1024,
    (file) => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file)?.getText(),
  );
}
