import * as vscode from 'vscode';
import { clampSetting } from '../../core/settingLimits';
import type { HotspotState } from './hotspotState';
import { amount, count, functionName, pct, shareOf } from './format';

export const REVEAL_COMMAND = 'nodeFlame.revealInFlameGraph';

/** "🔥 48.1% total · 12.3% self · 1,234 samples" over each function at or above the threshold. */
export class HotFunctionLenses implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;
  /** What the log last said per document, so it speaks once per change of answer, not on every render. */
  private readonly said = new Map<string, string>();

  constructor(
    private readonly state: HotspotState,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.onDidChangeCodeLenses = state.onDidChange;
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const lenses = this.lenses(doc);
    // Only once a profile's hot spot code is loaded: plain editing without a profile says nothing.
    if (this.state.lib) {
      const key = doc.uri.toString();
      const what = String(lenses.length);
      if (this.said.get(key) !== what) this.log?.info(`CodeLens: ${what} lenses in ${doc.uri.fsPath} (version ${doc.version})`);
      this.said.set(key, what);
    }
    return lenses;
  }

  private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const hs = this.state.forDocument(doc);
    const lib = this.state.lib;
    if (!hs || !lib) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    if (hs.stale) {
      return [
        new vscode.CodeLens(top, {
          title: vscode.l10n.t('$(warning) Node Flame: hot spots hidden because this file changed since the profile ({0})', hs.stale),
          tooltip: vscode.l10n.t('Profile the app again to annotate the current code.'),
          command: REVEAL_COMMAND,
          arguments: [hs.loaded.id],
        }),
      ];
    }
    const threshold = clampSetting('codeLens.threshold', vscode.workspace.getConfiguration('nodeFlame').get('codeLens.threshold')) / 100;
    const meta = hs.loaded.profile.meta;
    const samples = (meta.unit ?? 'samples') === 'samples';
    return lib.hotFunctions(hs.file, threshold).map((f) => {
      const line = Math.min(f.line - 1, doc.lineCount - 1);
      const col = Math.max(0, Math.min(f.column - 1, doc.lineAt(line).text.length));
      return new vscode.CodeLens(new vscode.Range(line, col, line, col), {
        title: samples
          ? vscode.l10n.t('🔥 {0} total · {1} self · {2} samples', pct(f.totalShare), pct(f.selfShare), count(f.total))
          : vscode.l10n.t('🔥 {0} · {1} · {2} self', shareOf(f.totalShare, meta), amount(f.total, meta), pct(f.selfShare)),
        tooltip: vscode.l10n.t('{0}: show in the flame graph ({1})', functionName(f.name), hs.loaded.label),
        command: REVEAL_COMMAND,
        arguments: [hs.loaded.id, f.frame],
      });
    });
  }
}
