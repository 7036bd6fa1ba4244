import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ProfileStore } from '../services';
import type { HotspotState } from './hotspotState';

export const DIAGNOSTIC_SOURCE = 'Node Flame';

/**
 * A profile's file name as an editor URI: absolute paths, file: URLs, and relative names (source maps) found
 * in a workspace folder; `node:` and other names have no file.
 */
function fileUri(file: string): vscode.Uri | undefined {
  if (/^file:\/\//i.test(file)) return vscode.Uri.parse(file);
  if (isAbsolute(file)) return vscode.Uri.file(file);
  if (/^[a-z][\w+.-]*:/i.test(file)) return undefined;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const p = join(folder.uri.fsPath, file);
    if (folder.uri.scheme === 'file' && existsSync(p)) return vscode.Uri.file(p);
  }
  return undefined;
}

/** The line's text from its indentation to its end, so the squiggle sits under the code and not the indent. */
function lineRange(uri: vscode.Uri, line: number, texts: Map<string, string[] | undefined>): vscode.Range {
  let lines = texts.get(uri.fsPath);
  if (!texts.has(uri.fsPath)) {
    try {
      lines = readFileSync(uri.fsPath, 'utf8').split(/\r?\n/);
    } catch {
      lines = undefined;
    }
    texts.set(uri.fsPath, lines);
  }
  const text = lines?.[line] ?? '';
  const start = Math.max(0, text.search(/\S/));
  return new vscode.Range(line, start, line, Math.max(start + 1, text.length));
}

/**
 * The active profile's findings as diagnostics (Problems panel, squiggles under the line): shown with the
 * hot spots and cleared with them ("Clear Hot Spots", another profile, none active).
 */
export class FindingDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('nodeFlame.findings');
  private readonly sub: vscode.Disposable;
  private shown: string | undefined;
  private generation = 0;

  constructor(
    private readonly state: HotspotState,
    private readonly store: ProfileStore,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.sub = state.onDidChange(() => void this.update());
    void this.update();
  }

  private async update(): Promise<void> {
    const loaded = this.store.active;
    if (!loaded || this.state.cleared) {
      this.generation++;
      this.shown = undefined;
      this.collection.clear();
      return;
    }
    if (this.shown === loaded.id) return;
    const generation = ++this.generation;
    const { findingsSoon } = await import('../findings');
    const findings = await findingsSoon(loaded.profile);
    if (generation !== this.generation) return;
    this.shown = loaded.id;
    this.collection.clear();
    const byFile = new Map<string, { uri: vscode.Uri; list: vscode.Diagnostic[] }>();
    const texts = new Map<string, string[] | undefined>();
    let count = 0;
    for (const f of findings) {
      const uri = f.file && f.line ? fileUri(f.file) : undefined;
      if (!uri || !f.line) continue;
      const d = new vscode.Diagnostic(
        lineRange(uri, f.line - 1, texts),
        f.message,
        f.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information,
      );
      d.source = DIAGNOSTIC_SOURCE;
      d.code = f.rule;
      let e = byFile.get(uri.toString());
      if (!e) byFile.set(uri.toString(), (e = { uri, list: [] }));
      e.list.push(d);
      count++;
    }
    for (const e of byFile.values()) this.collection.set(e.uri, e.list);
    this.log?.info(`findings: ${count} diagnostics for ${loaded.label}`);
  }

  dispose(): void {
    this.sub.dispose();
    this.collection.dispose();
  }
}
