import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { describeModes, isLaunchMode, type LaunchMode } from '../../launch/run/modes';
import {
  describeSource,
  launchJsonCandidates,
  packageJsonCandidates,
  targetFromCommand,
  targetKey,
  type LaunchTarget,
  type TargetCandidate,
} from '../../launch/target';
import { splitCommandLine } from '../../launch/commandLine';
import { LaunchError } from '../../launch/errors';

const TARGET_KEY = 'nodeFlame.lastTarget';
const MODE_KEY = 'nodeFlame.lastMode';

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The target the settings describe, when `nodeFlame.program` is set. */
export function targetFromSettings(folder: vscode.WorkspaceFolder | undefined): LaunchTarget | undefined {
  const cfg = vscode.workspace.getConfiguration('nodeFlame', folder?.uri);
  const program = cfg.get<string>('program', '').trim();
  const command = cfg.get<string>('command', '').trim();
  if (!program && !command) return undefined;
  const base = folder?.uri.fsPath ?? process.cwd();
  const cwdSetting = cfg.get<string>('cwd', '').trim();
  const cwd = cwdSetting ? resolve(base, cwdSetting) : base;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(cfg.get<Record<string, unknown>>('env', {}) ?? {}))
    if (v !== null && v !== undefined) env[k] = String(v);
  // A free command line (`npm run dev`), split as a shell would but run without one.
  if (!program) return targetFromCommand(splitCommandLine(command), env, cwd);
  const nodePath = cfg.get<string>('nodePath', '').trim();
  return {
    program: isAbsolute(program) ? program : resolve(base, program),
    args: stringArray(cfg.get('args')),
    env,
    cwd,
    nodeArgs: stringArray(cfg.get('nodeArgs')),
    nodePath: nodePath ? resolve(base, nodePath) : undefined,
  };
}

function activeFileCandidate(folder: vscode.WorkspaceFolder | undefined): TargetCandidate | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== 'file' || !/\.(c|m)?[jt]sx?$/i.test(doc.uri.fsPath)) return undefined;
  const cwd = folder?.uri.fsPath ?? resolve(doc.uri.fsPath, '..');
  return {
    target: { program: doc.uri.fsPath, args: [], env: {}, cwd, nodeArgs: [] },
    source: 'active file',
    label: basename(doc.uri.fsPath),
  };
}

/** Everything the workspace suggests running, best guess first; the remembered choice leads. */
export function targetCandidates(context: vscode.ExtensionContext, folder: vscode.WorkspaceFolder | undefined): TargetCandidate[] {
  const out: TargetCandidate[] = [];
  if (folder) {
    out.push(...launchJsonCandidates(vscode.workspace.getConfiguration('launch', folder.uri).get('configurations'), folder.uri.fsPath));
    out.push(...packageJsonCandidates(folder.uri.fsPath));
  }
  const active = activeFileCandidate(folder);
  if (active) out.push(active);
  const seen = new Set<string>();
  const unique = out.filter((c) => {
    const k = targetKey(c.target);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const last = context.workspaceState.get<TargetCandidate>(TARGET_KEY);
  if (last?.target && (last.target.command || existsSync(last.target.program))) {
    const i = unique.findIndex((c) => targetKey(c.target) === targetKey(last.target));
    if (i > 0) unique.unshift(...unique.splice(i, 1));
    else if (i < 0) unique.unshift(last);
  }
  return unique;
}

interface TargetItem extends vscode.QuickPickItem {
  candidate?: TargetCandidate;
  browse?: boolean;
}

/** The app to profile: from the settings without asking, else picked (and remembered). Undefined: cancelled. */
export async function chooseTarget(
  context: vscode.ExtensionContext,
  folder: vscode.WorkspaceFolder | undefined,
): Promise<LaunchTarget | undefined> {
  const fromSettings = targetFromSettings(folder);
  if (fromSettings) return fromSettings;
  const candidates = targetCandidates(context, folder);
  const root = folder?.uri.fsPath;
  const items: TargetItem[] = candidates.map((c, i) => {
    const rel = c.target.command ? c.target.command.join(' ') : root ? relative(root, c.target.program) : c.target.program;
    const args = c.target.args.length && !c.target.command ? ' ' + c.target.args.join(' ') : '';
    return {
      label: c.source === 'launch.json' ? c.label : rel + args,
      description: describeSource(c.source) + (i === 0 && context.workspaceState.get(TARGET_KEY) ? ' · ' + vscode.l10n.t('last used') : ''),
      detail:
        c.source === 'launch.json' || c.source === 'package.json start' || c.source === 'package.json script' ? `${rel}${args}` : undefined,
      candidate: c,
    };
  });
  items.push({ label: `$(folder-opened) ${vscode.l10n.t('Browse for a script…')}`, browse: true });
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Profile Node App: which app?'),
    placeHolder: candidates.length
      ? vscode.l10n.t('Pick the script to run under the profiler')
      : vscode.l10n.t('No script found in launch.json or package.json: browse for one'),
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  let chosen = picked.candidate;
  if (picked.browse) {
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: false,
      defaultUri: folder?.uri,
      filters: { [vscode.l10n.t('Scripts')]: ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'] },
      openLabel: vscode.l10n.t('Profile'),
    });
    if (!uris?.length) return undefined;
    chosen = {
      target: { program: uris[0].fsPath, args: [], env: {}, cwd: root ?? resolve(uris[0].fsPath, '..'), nodeArgs: [] },
      source: 'active file',
      label: basename(uris[0].fsPath),
    };
  }
  if (!chosen) return undefined;
  await context.workspaceState.update(TARGET_KEY, chosen);
  return chosen.target;
}

/** The profiler: `nodeFlame.mode` without asking, else picked with what each sees and costs (remembered). */
export async function chooseMode(
  context: vscode.ExtensionContext,
  folder: vscode.WorkspaceFolder | undefined,
): Promise<LaunchMode | undefined> {
  const modes = describeModes();
  const setting = vscode.workspace.getConfiguration('nodeFlame', folder?.uri).get<string>('mode', '');
  if (isLaunchMode(setting)) {
    const info = modes.find((m) => m.mode === setting)!;
    if (!info.available)
      throw new LaunchError(
        'perf-preflight',
        (info.unavailableReason ?? '') + ' ' + vscode.l10n.t('Set nodeFlame.mode to "prof" or "cpu-prof".'),
      );
    return setting;
  }
  const last = context.workspaceState.get<string>(MODE_KEY);
  const available = modes.filter((m) => m.available);
  available.sort((a, b) => Number(b.mode === last) - Number(a.mode === last));
  const picked = await vscode.window.showQuickPick(
    available.map((m) => ({
      label: m.label,
      detail: m.detail,
      description: m.mode === last ? vscode.l10n.t('last used') : undefined,
      mode: m.mode,
    })),
    {
      title: vscode.l10n.t('Profile Node App: which profiler?'),
      placeHolder: vscode.l10n.t('Set nodeFlame.mode to skip this question'),
      ignoreFocusOut: true,
    },
  );
  if (!picked) return undefined;
  await context.workspaceState.update(MODE_KEY, picked.mode);
  return picked.mode;
}
