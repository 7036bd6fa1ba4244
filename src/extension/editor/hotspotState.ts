import * as vscode from 'vscode';
import type { ProfileStore } from '../services';
import { MAP_SOURCE_SCHEME } from '../viewer/coreSource';
import type { DocumentHotspots, ProfileLookup } from './locations';

export const SOURCE_LANGUAGES = ['javascript', 'javascriptreact', 'typescript', 'typescriptreact'];
export const SOURCE_SELECTOR: vscode.DocumentSelector = SOURCE_LANGUAGES.map((language) => ({ language }));
const SOURCE_EXT = /\.(?:[mc]?js|jsx|[mc]?ts|tsx)$/i;

/** The hot spot code (the model's hotspot index, file matching, staleness checks); loaded with the first active profile. */
export type HotspotLib = typeof import('./locations');

/**
 * Ties the active profile to open documents. Everything the editor shows asks this; without an active
 * profile it answers without loading any profile code, so activation and plain editing stay cheap.
 */
export class HotspotState implements vscode.Disposable {
  private lookup?: ProfileLookup;
  private loading?: Promise<HotspotLib>;
  /** Set once the hot spot code is loaded: a non-empty answer from `forDocument` implies it. */
  lib?: HotspotLib;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  /** "Clear Hot Spots" hides everything until another profile becomes active. */
  cleared = false;

  constructor(
    private readonly store: ProfileStore,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.subs.push(
      store.onDidChangeActive((p) => {
        this.lookup = undefined;
        this.cleared = false;
        if (p) void this.load();
        this.changed.fire();
      }),
      vscode.workspace.onDidSaveTextDocument(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('nodeFlame')) this.refresh();
      }),
    );
  }

  clear(): void {
    this.cleared = true;
    this.changed.fire();
  }

  refresh(): void {
    this.lookup?.forget();
    this.changed.fire();
  }

  /** Loads the hot spot code once; CodeLens and heat are told to ask again when it is there. */
  load(): Promise<HotspotLib> {
    if (!this.loading) {
      this.loading = import('./locations').then((lib) => {
        this.lib = lib;
        this.changed.fire();
        return lib;
      });
      this.loading.catch((e: Error) => this.log?.error(`hot spots: ${e.message}`));
    }
    return this.loading;
  }

  /** The active profile's hot spots in `doc`; undefined until the hot spot code is loaded (a change event follows). */
  forDocument(doc: vscode.TextDocument): DocumentHotspots | undefined {
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== MAP_SOURCE_SCHEME) return undefined;
    if (!SOURCE_EXT.test(doc.uri.path) && !SOURCE_LANGUAGES.includes(doc.languageId)) return undefined;
    const loaded = this.store.active;
    if (!loaded || this.cleared) return undefined;
    if (!this.lib) {
      void this.load();
      return undefined;
    }
    if (this.lookup?.loaded.id !== loaded.id || this.lookup.profile !== (loaded.view ?? loaded.profile))
      this.lookup = new this.lib.ProfileLookup(loaded, this.log);
    return this.lookup.forDocument(doc);
  }

  /** `forDocument` for callers that can wait (a hover): loads the hot spot code first when a profile is active. */
  async forDocumentLoaded(doc: vscode.TextDocument): Promise<DocumentHotspots | undefined> {
    if (!this.lib && this.store.active && !this.cleared) await this.load();
    return this.forDocument(doc);
  }

  dispose(): void {
    this.changed.dispose();
    for (const s of this.subs) s.dispose();
  }
}
