// Loaded on the first comparison: run listing and the model stay out of activation.
import * as vscode from 'vscode';
import { basename, dirname } from 'node:path';
import { listRuns } from '../history/runs';
import { ProfileError } from '../../core/model';
import type { LoadedProfile, Services } from '../services';

interface Candidate extends vscode.QuickPickItem {
  path?: string;
  loaded?: LoadedProfile;
  browse?: boolean;
}

/** Loaded profiles first (most recent last loaded first), then runs in `.nodeflame/`, then a file picker. */
async function candidates(s: Services, exclude?: string): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const p of s.store.all().reverse()) {
    if (p.path === exclude || seen.has(p.path)) continue;
    seen.add(p.path);
    out.push({ label: p.label, description: vscode.l10n.t('open'), detail: p.path, path: p.path, loaded: p });
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    const runs = await listRuns(folder.uri.fsPath).catch(() => []);
    for (const r of runs) {
      const main = r.profiles[0];
      if (!main || main === exclude || seen.has(main)) continue;
      seen.add(main);
      const top = r.summary?.topFunction?.name;
      out.push({ label: r.name, description: [r.mode, top].filter(Boolean).join(' · '), detail: main, path: main });
    }
  }
  out.push({ label: `$(folder-opened) ${vscode.l10n.t('Choose a profile file…')}`, browse: true, alwaysShow: true });
  return out;
}

async function pick(s: Services, title: string, exclude?: string): Promise<string | undefined> {
  const item = await vscode.window.showQuickPick(await candidates(s, exclude), { title, matchOnDetail: true, ignoreFocusOut: true });
  if (!item) return undefined;
  if (!item.browse) return item.path;
  const uris = await vscode.window.showOpenDialog({ title, canSelectMany: false, openLabel: vscode.l10n.t('Compare') });
  return uris?.[0]?.fsPath;
}

async function load(s: Services, path: string): Promise<LoadedProfile> {
  return s.store.load(path, { runDir: basename(dirname(path)).match(/^\d{8}-\d{6}/) ? dirname(path) : undefined });
}

/** `nodeFlame.compareProfiles [before] [after]`: paths from the history view, or picked. */
export async function compareProfiles(s: Services, beforePath?: string, afterPath?: string): Promise<void> {
  const before = beforePath ?? (await pick(s, vscode.l10n.t('Compare: the profile BEFORE the change')));
  if (!before) return;
  const after = afterPath ?? (await pick(s, vscode.l10n.t('Compare: the profile AFTER the change'), before));
  if (!after) return;
  try {
    const [b, a] = await Promise.all([load(s, before), load(s, after)]);
    await s.viewer.showDiff(b, a);
  } catch (e) {
    if (e instanceof vscode.CancellationError) return;
    const msg = e instanceof ProfileError ? `${e.file ? basename(e.file) + ': ' : ''}${e.message}` : String((e as Error)?.message ?? e);
    void vscode.window.showErrorMessage(vscode.l10n.t('Node Flame: cannot compare profiles: {0}', msg));
  }
}
