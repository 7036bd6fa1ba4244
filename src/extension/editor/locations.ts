// Loaded with the first active profile (HotspotState.load): nothing here runs at activation.
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { buildHotspots, functionStillAt, type FileHotspots, type HotspotIndex } from '../../core/model/hotspots';
import { SourceFileMatcher, caseInsensitiveFs, pathKey } from '../../core/model/sourceFiles';
import type { Profile } from '../../core/model';
import type { LoadedProfile } from '../services';
import { readRunJsonSync } from '../../launch/run/runFolder';

// The model's helpers CodeLens, hover and heat use once a profile is active (see HotspotState.lib).
export { callersAndCallees, heatLevel, hotFunctions } from '../../core/model/hotspots';

export interface DocumentHotspots {
  loaded: LoadedProfile;
  index: HotspotIndex;
  file: FileHotspots;
  /** Why the annotations would be wrong; set when the file changed after the profile was taken. */
  stale?: string;
}

/** One profile's hot spots, asked per document: which profile file an editor file is, and whether it is still that code. */
export class ProfileLookup {
  private readonly index: HotspotIndex;
  private readonly matcher: SourceFileMatcher;
  /** Epoch ms when the profiled code was loaded, as near as we can tell; undefined when unknown. */
  private readonly takenMs?: number;
  /** Hash of each file's text when it was first seen unchanged since the profile. */
  private readonly fresh = new Map<string, string>();
  private readonly answers = new Map<string, { key: string; value: DocumentHotspots | undefined }>();
  private loggedStale = '';

  /** What the hot spots are built from: the viewer's transformed profile when it has transforms. */
  readonly profile: Profile;

  constructor(
    readonly loaded: LoadedProfile,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.profile = loaded.view ?? loaded.profile;
    this.index = buildHotspots(this.profile);
    this.matcher = new SourceFileMatcher(this.index.files.keys(), caseInsensitiveFs(process.platform));
    this.takenMs = profileTakenMs(loaded);
  }

  /** Drops cached answers (a save or a settings change may change them). */
  forget(): void {
    this.answers.clear();
  }

  forDocument(doc: vscode.TextDocument): DocumentHotspots | undefined {
    // CodeLens, hover and heat all ask per render: answer from the cache while the text is unchanged.
    const cacheKey = `${doc.uri.toString()}#${doc.version}#${doc.isDirty}`;
    const cached = this.answers.get(doc.uri.toString());
    if (cached && cached.key === cacheKey) return cached.value;
    const value = this.compute(doc);
    this.answers.set(doc.uri.toString(), { key: cacheKey, value });
    return value;
  }

  private compute(doc: vscode.TextDocument): DocumentHotspots | undefined {
    const docPath = doc.uri.fsPath;
    const name = this.matcher.match(docPath, {
      exists: (f) => pathKey(f, false) !== pathKey(docPath, false) && existsSync(f),
      realpath: realpathSync.native,
    });
    if (name === undefined) return undefined;
    const file = this.index.files.get(name)!;
    const text = doc.getText();
    const seen = this.fresh.get(docPath);
    // Text we already saw unchanged since the profile is still that code, whatever its mtime says
    // now (an edit that was undone and saved again).
    const known = seen !== undefined && seen === hashText(text);
    const stale = staleReason(doc, file, known ? undefined : this.takenMs, known);
    if (!stale && seen === undefined) this.fresh.set(docPath, hashText(text));
    const key = `${doc.uri.toString()}#${doc.version}`;
    if (stale && this.loggedStale !== key) {
      this.loggedStale = key;
      this.log?.info(
        `hot spots hidden in ${docPath} (${stale}); profile ${this.loaded.path} taken at ${this.takenMs !== undefined ? new Date(this.takenMs).toISOString() : 'unknown'}, file written ${mtimeOf(docPath)}`,
      );
    }
    return { loaded: this.loaded, index: this.index, file, stale };
  }
}

/**
 * When the profiled code was loaded: the run's recorded start when there is one, else the profile
 * file's last write minus the sampled span (the file is written when sampling ends).
 */
function profileTakenMs(loaded: LoadedProfile): number | undefined {
  if (loaded.runDir) {
    const started = runStart(loaded);
    if (started !== undefined) return started;
  }
  try {
    const written = statSync(loaded.path).mtimeMs;
    return written - (loaded.profile.meta.durationMs ?? 0);
  } catch {
    return undefined;
  }
}

function runStart(loaded: LoadedProfile): number | undefined {
  // No readable run.json: the caller falls back to the profile file's time. The run read with the profile, when it was.
  const info = loaded.run ? loaded.run.info : loaded.runDir ? readRunJsonSync(loaded.runDir) : undefined;
  const ms = Date.parse(info?.startedAt ?? '');
  return Number.isFinite(ms) ? ms : undefined;
}

function hashText(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

function staleReason(doc: vscode.TextDocument, file: FileHotspots, takenMs: number | undefined, knownText: boolean): string | undefined {
  if (doc.isDirty && !knownText) return vscode.l10n.t('it has unsaved changes');
  if (doc.uri.scheme === 'file' && takenMs !== undefined) {
    try {
      // One second of slack: some file systems keep mtimes at that resolution.
      if (statSync(doc.uri.fsPath).mtimeMs > takenMs + 1000) return vscode.l10n.t('it was modified after the profile was taken');
    } catch {
      return undefined;
    }
  }
  for (const f of file.functions) {
    if (f.line > doc.lineCount) return vscode.l10n.t('the profile names line {0}, past its end', f.line);
    if (f.total > 0 && !functionStillAt(f.name, doc.lineAt(f.line - 1).text)) {
      return vscode.l10n.t('line {0} no longer holds {1}', f.line, f.name);
    }
  }
  return undefined;
}

function mtimeOf(path: string): string {
  try {
    return new Date(statSync(path).mtimeMs).toISOString();
  } catch {
    return 'unknown';
  }
}
