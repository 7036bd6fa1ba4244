import * as vscode from 'vscode';
import type { FunctionHotspot, HotspotIndex, Neighbour } from '../../core/model/hotspots';
import type { Frame, Profile } from '../../core/model';
import type { HotspotLib, HotspotState } from './hotspotState';
import { amount, functionName, pct, shareOf } from './format';
import { REVEAL_COMMAND } from './codeLens';

/** Hover on a profiled function's first line (or a hot line): its weight, callers and callees. */
export class HotspotHover implements vscode.HoverProvider {
  constructor(private readonly state: HotspotState) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const hs = await this.state.forDocumentLoaded(doc);
    const lib = this.state.lib;
    if (!hs || hs.stale || !lib) return undefined;
    const line = pos.line + 1;
    const fns = hs.file.functions.filter((f) => f.line === line && f.total > 0);
    const heat = hs.file.lines.find((l) => l.line === line);
    if (!fns.length && !heat) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    // Only our own reveal command may run from the hover; names in it come from the profile.
    md.isTrusted = { enabledCommands: [REVEAL_COMMAND] };
    for (const f of fns) appendFunction(lib, md, hs.index, hs.loaded.profile, f, hs.loaded.id);
    if (heat) {
      md.appendMarkdown(`$(flame) `);
      md.appendText(
        vscode.l10n.t(
          'This line: {0} ({1} running on it, {2} in calls from it)',
          shareOf(heat.share, hs.loaded.profile.meta),
          pct(hs.index.weight ? heat.self / hs.index.weight : 0),
          pct(hs.index.weight ? Math.max(0, heat.total - heat.self) / hs.index.weight : 0),
        ),
      );
      md.appendMarkdown('\n\n');
    }
    return new vscode.Hover(md);
  }
}

function label(frames: Frame[], n: Neighbour): string {
  if (n.frame < 0) return vscode.l10n.t('(program start)');
  const f = frames[n.frame];
  const where = f.file ? ` ${f.file.split(/[\\/]/).pop()}${f.line ? `:${f.line}` : ''}` : f.lib ? ` ${f.lib.split(/[\\/]/).pop()}` : '';
  return `${functionName(f.name)}${where}`.replace(/[\r\n]+/g, ' ');
}

function appendFunction(
  lib: HotspotLib,
  md: vscode.MarkdownString,
  index: HotspotIndex,
  profile: Profile,
  f: FunctionHotspot,
  profileId: string,
): void {
  const frames = profile.frames;
  md.appendMarkdown('**');
  md.appendText(functionName(f.name).replace(/[\r\n]+/g, ' '));
  md.appendMarkdown('**\n\n');
  md.appendText(
    vscode.l10n.t('{0} total · {1} self · {2}', shareOf(f.totalShare, profile.meta), pct(f.selfShare), amount(f.total, profile.meta)),
  );
  const args = encodeURIComponent(JSON.stringify([profileId, f.frame]));
  md.appendMarkdown(` · [${escapeLinkText(vscode.l10n.t('Show in flame graph'))}](command:${REVEAL_COMMAND}?${args})\n\n`);
  const { callers, callees } = lib.callersAndCallees(index, f, 5);
  const list = (title: string, items: Neighbour[]): void => {
    if (!items.length) return;
    md.appendMarkdown('*');
    md.appendText(title);
    md.appendMarkdown('*\n\n');
    for (const n of items) {
      md.appendMarkdown('- ');
      md.appendText(`${pct(n.share)}  ${label(frames, n)}`);
      md.appendMarkdown('\n');
    }
    md.appendMarkdown('\n');
  };
  list(vscode.l10n.t('Callers (share of this function)'), callers);
  list(vscode.l10n.t('Callees (share of this function)'), callees);
}

function escapeLinkText(s: string): string {
  return s.replace(/[[\]\\]/g, '\\$&');
}
