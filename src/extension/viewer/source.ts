import * as vscode from 'vscode';
import { realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame } from '../../core/model/frame';
import { coreUri } from './coreSource';
import { mapSourceUri } from './mapSource';
import { STACK_TOO_DEEP } from '../../core/importers/deepStacks';
import { CALLERS_UNKNOWN } from '../../core/importers/perf/lostCallers';

/** Why a frame has nothing to open, in words; undefined when it has a source to look for. */
export function noSourceReason(f: Frame): string | undefined {
  const lib = f.lib ? basename(f.lib) : '';
  switch (f.category) {
    case 'native':
      return vscode.l10n.t(
        'Native C++ code{0}: compiled machine code with no JavaScript source. Its name tells what it does.',
        lib ? ` (${lib})` : '',
      );
    case 'shared-lib':
      return vscode.l10n.t('Machine code in the shared library {0}: there is no source to open.', lib || f.name);
    case 'kernel':
      return vscode.l10n.t('Operating system kernel code: it runs outside the process, so there is no source here.');
    case 'gc':
      return vscode.l10n.t('Garbage collection: V8 reclaiming memory. Allocate less in the hot code to shrink it.');
    case 'idle':
      return vscode.l10n.t('Idle: the process was waiting for work, nothing ran.');
    case 'program':
      return vscode.l10n.t('A thread or program root: it groups samples and has no code of its own.');
    case 'unaccounted':
      // The two frames that stand for a stack's missing outer part: what is drawn above them ran, their callers are unknown.
      if (f.name === STACK_TOO_DEEP.name)
        return vscode.l10n.t(
          'These stacks were deeper than the sampler keeps (V8: 255 frames of a CPU sample, 128 JavaScript frames of an allocation; perf: kernel.perf_event_max_stack): what is drawn above ran, but its outermost callers were not recorded.',
        );
      if (f.name === CALLERS_UNKNOWN.name)
        return vscode.l10n.t(
          'perf could not walk these stacks past the frame above (code without frame pointers): what is drawn above ran, but its callers are not known.',
        );
      return vscode.l10n.t('Unaccounted: the sample could not be attributed to any code.');
    case 'wasm':
      return vscode.l10n.t("A WebAssembly function: its module's code has no source lines to open.");
    case 'eval':
      return vscode.l10n.t('Code made at run time by eval or new Function: it has no file, only the position inside its own source.');
    case 'v8':
      if (!f.file) return vscode.l10n.t('A V8 builtin or stub: compiled into the node binary, with no JavaScript source.');
      return undefined;
    default:
      return f.file ? undefined : vscode.l10n.t('The profile recorded no file for this function.');
  }
}

/** Finds the file a profile names: as written, as a file URL, or by the longest matching path tail in the workspace. */
export async function resolveSourceUri(file: string): Promise<vscode.Uri | undefined> {
  let path = file;
  if (/^file:\/\//i.test(path)) {
    try {
      path = fileURLToPath(path);
    } catch {
      return undefined;
    }
  }
  // Only a regular file: a FIFO or device a profile names would hang whoever reads it.
  if (isAbsolute(path) && statSync(path, { throwIfNoEntry: false })?.isFile()) return vscode.Uri.file(path);
  const segs = path.split(/[\\/]+/).filter(Boolean);
  const name = segs[segs.length - 1];
  if (!name || !vscode.workspace.workspaceFolders?.length) return undefined;
  const found = await vscode.workspace.findFiles(`**/${name.replace(/[[\]{}*?]/g, '?')}`, undefined, 50);
  let best: vscode.Uri | undefined;
  let bestLen = 0;
  for (const uri of found) {
    const u = uri.fsPath.split(/[\\/]+/);
    let n = 0;
    while (n < u.length && n < segs.length && u[u.length - 1 - n] === segs[segs.length - 1 - n]) n++;
    if (n > bestLen || (n === bestLen && best && uri.fsPath.length < best.fsPath.length)) {
      best = uri;
      bestLen = n;
    }
  }
  return best;
}

/** The answer for each file outside the workspace, asked once per file (per window). */
const outsideAnswers = new Map<string, boolean>();

/** The file itself (symlinks resolved) lies in a workspace folder (each folder resolved too). */
function inWorkspace(path: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const file = real(path);
  return (vscode.workspace.workspaceFolders ?? []).some((w) => {
    const rel = relative(real(w.uri.fsPath), file);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  });
}

/**
 * In Restricted Mode a profile comes from a repository not trusted yet, and the files it names are its
 * choice: one outside the workspace (`/etc/passwd`, a key file) opens only after the user says so, once per file.
 */
async function mayOpenOutside(uri: vscode.Uri): Promise<boolean> {
  if (vscode.workspace.isTrusted || uri.scheme !== 'file' || inWorkspace(uri.fsPath)) return true;
  const known = outsideAnswers.get(uri.fsPath);
  if (known !== undefined) return known;
  const open = vscode.l10n.t('Open');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('Open {0}?', uri.fsPath),
    {
      modal: true,
      detail: vscode.l10n.t('The profile names this file, which is outside the workspace. The workspace is not trusted (Restricted Mode).'),
    },
    open,
  );
  outsideAnswers.set(uri.fsPath, answer === open);
  return answer === open;
}

/**
 * Shows a frame's source beside the graph. `focus` false keeps the keyboard in the graph (a click);
 * true moves it to the editor (Ctrl/Cmd+click, Enter). Returns why nothing opened, if nothing did.
 */
export async function openFrameSource(f: Frame, focus: boolean): Promise<string | undefined> {
  const reason = noSourceReason(f);
  if (reason) return reason;
  // A source only inside its bundle's map opens read-only from there.
  const uri = f.category === 'node' ? coreUri(f.file) : ((await resolveSourceUri(f.file)) ?? mapSourceUri(f));
  if (!uri) return vscode.l10n.t('Cannot find {0} on this machine or in the workspace.', f.file);
  if (!(await mayOpenOutside(uri))) return vscode.l10n.t('{0} was not opened: it is outside the workspace.', f.file);
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument(uri);
  } catch (e) {
    return (e as Error).message;
  }
  const line = Math.max(0, Math.min(doc.lineCount - 1, (f.line || 1) - 1));
  const col = Math.max(0, (f.column || 1) - 1);
  const pos = new vscode.Position(line, Math.min(col, doc.lineAt(line).text.length));
  await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: !focus,
    preview: !focus,
    selection: new vscode.Range(pos, pos),
  });
  return undefined;
}
