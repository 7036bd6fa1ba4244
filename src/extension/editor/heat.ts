import * as vscode from 'vscode';
import { clampSetting } from '../../core/settingLimits';
import type { HotspotState } from './hotspotState';
import { shareOf } from './format';

/** Yellow to red; the alpha keeps text readable on light and dark themes alike. */
const COLOURS = ['#f5d33f', '#f5a623', '#f0782e', '#e4472b', '#c8102e'];

function gutterIcon(colour: string): vscode.Uri {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="5" y="0" width="5" height="16" fill="${colour}"/></svg>`;
  return vscode.Uri.parse(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
}

interface Styles {
  levels: vscode.TextEditorDecorationType[];
  label: vscode.TextEditorDecorationType;
}

/**
 * Line heat: a gutter bar and an overview-ruler mark per line with hits, coloured by its share of the
 * hottest line; optionally a line background and the line's share at its end.
 */
export class LineHeat implements vscode.Disposable {
  private styles?: Styles;
  private stylesKey = '';
  private visible: boolean;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly state: HotspotState) {
    this.visible = vscode.workspace.getConfiguration('nodeFlame').get<boolean>('heat.enabled', true);
    void vscode.commands.executeCommand('setContext', 'nodeFlame.heatVisible', this.visible);
    this.subs.push(
      state.onDidChange(() => this.renderAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        // An edit shifts lines under the marks: re-check at once (the file is now stale).
        if (e.contentChanges.length) for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) this.render(ed);
      }),
    );
    this.renderAll();
  }

  toggle(): void {
    this.visible = !this.visible;
    void vscode.commands.executeCommand('setContext', 'nodeFlame.heatVisible', this.visible);
    this.renderAll();
  }

  get isVisible(): boolean {
    return this.visible;
  }

  private ensureStyles(): Styles {
    const cfg = vscode.workspace.getConfiguration('nodeFlame');
    const background = cfg.get<boolean>('heat.lineBackground', false);
    const key = String(background);
    if (this.styles && this.stylesKey === key) return this.styles;
    this.disposeStyles();
    this.stylesKey = key;
    this.styles = {
      levels: COLOURS.map((c, i) =>
        vscode.window.createTextEditorDecorationType({
          isWholeLine: true,
          gutterIconPath: gutterIcon(c),
          gutterIconSize: 'contain',
          overviewRulerColor: c,
          overviewRulerLane: vscode.OverviewRulerLane.Right,
          backgroundColor: background ? `${c}${(0x14 + i * 0x0c).toString(16)}` : undefined,
        }),
      ),
      label: vscode.window.createTextEditorDecorationType({
        after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground') },
      }),
    };
    return this.styles;
  }

  private renderAll(): void {
    for (const ed of vscode.window.visibleTextEditors) this.render(ed);
  }

  private render(ed: vscode.TextEditor): void {
    const hs = this.visible ? this.state.forDocument(ed.document) : undefined;
    if (!hs && !this.styles) return;
    const styles = this.ensureStyles();
    const perLevel: vscode.Range[][] = styles.levels.map(() => []);
    const labels: vscode.DecorationOptions[] = [];
    const lib = this.state.lib;
    if (hs && !hs.stale && lib) {
      const cfg = vscode.workspace.getConfiguration('nodeFlame');
      const showPercent = cfg.get<boolean>('heat.showPercent', true);
      const minShare = clampSetting('codeLens.threshold', cfg.get('codeLens.threshold')) / 100;
      for (const l of hs.file.lines) {
        if (l.line > ed.document.lineCount) continue;
        const range = new vscode.Range(l.line - 1, 0, l.line - 1, 0);
        perLevel[lib.heatLevel(l.intensity, styles.levels.length) - 1].push(range);
        if (showPercent && l.share >= minShare) {
          const end = ed.document.lineAt(l.line - 1).range.end;
          labels.push({
            range: new vscode.Range(end, end),
            renderOptions: { after: { contentText: vscode.l10n.t('🔥 {0} on this line', shareOf(l.share, hs.loaded.profile.meta)) } },
          });
        }
      }
    }
    styles.levels.forEach((s, i) => ed.setDecorations(s, perLevel[i]));
    ed.setDecorations(styles.label, labels);
  }

  private disposeStyles(): void {
    if (!this.styles) return;
    for (const s of this.styles.levels) s.dispose();
    this.styles.label.dispose();
    this.styles = undefined;
  }

  dispose(): void {
    this.disposeStyles();
    for (const s of this.subs) s.dispose();
  }
}
