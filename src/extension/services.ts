import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { Profile } from '../core/model';
import type { OpenedRun } from '../launch/run/runFolder';

export interface LoadedProfile {
  id: string;
  /** Short name for titles and the status bar. */
  label: string;
  /** The raw file the profile was read from. */
  path: string;
  profile: Profile;
  /** The profile as its viewer's call-tree transforms leave it, when it has any: CodeLens and heat show this. */
  view?: Profile;
  /** Run folder when the profile came from a Node Flame run. */
  runDir?: string;
  /** That run, its run.json read once when the profile was (in the import worker). */
  run?: OpenedRun;
  /** A time range of the file's profile (ms from its start) this one stands for: a comparison of two ranges. */
  range?: { from: number; to: number };
  /** A live run's profile so far (extension/run/liveView.ts): nothing is cached from it, the run is not over. */
  live?: boolean;
}

/** Everything one feature module may need from the others; set up once in `activate`. */
export interface Services {
  context: vscode.ExtensionContext;
  store: ProfileStore;
  viewer: Viewer;
  log: vscode.LogOutputChannel;
}

export interface ShowOptions {
  /** Frame id to select and zoom to once shown. */
  revealFrame?: number;
  preserveFocus?: boolean;
  viewColumn?: vscode.ViewColumn;
}

export interface Viewer {
  show(p: LoadedProfile, opts?: ShowOptions): Promise<void>;
  /**
   * Reads a profile file into the store and shows it. The panel opens first and its page loads while the
   * file is read; a failed or cancelled read closes it and rejects.
   */
  open(path: string, extra?: Partial<LoadedProfile>, opts?: ShowOptions): Promise<LoadedProfile>;
  showDiff(before: LoadedProfile, after: LoadedProfile): Promise<void>;
  /**
   * Reads a profile file and shows it in a panel VS Code created (the custom editor for profile files),
   * its page loading meanwhile. On failure it rejects and leaves the panel to the caller.
   */
  openInPanel(panel: vscode.WebviewPanel, path: string, extra?: Partial<LoadedProfile>): Promise<LoadedProfile>;
  /**
   * Opens a panel for a profile still being recorded (focus stays where it is): its page loads while the
   * app runs, so the flame graph shows as soon as the file is read. Its Stop button runs `stopCommand`. `live`: the
   * run will be shown while it records (the waiting page says so).
   */
  reserve(label: string, stopCommand: string, opts?: { live?: boolean }): Promise<ReservedPanel>;
}

export interface ReservedPanel {
  /** Reads the profile into the reserved panel, or into a new one if the user closed it meanwhile. */
  open(path: string, extra?: Partial<LoadedProfile>): Promise<LoadedProfile>;
  /** Shows a profile already in the store there, in place of a live one (or in a new panel if the user closed it). */
  show(p: LoadedProfile): Promise<void>;
  /** No profile came: closes the panel (nothing once `open` was called). */
  release(): void;
  /**
   * A live run's profile so far, shown there (the first time in place of the waiting page), with the run's Stop and
   * Mark; `open` then puts the final profile in its place. False when the user closed the panel.
   */
  live?(p: LoadedProfile, controls: { stop(): void; mark(label?: string): void }): Promise<boolean>;
  /** Whether the panel is out of sight (behind another tab, or closed): a live run then redraws it less often. */
  hidden?(): boolean;
  /** Called each time the panel comes into sight again. */
  onShown?(listener: () => void): vscode.Disposable;
}

/** Profiles loaded in this window; the active one drives CodeLens, heat and the status bar. */
export class ProfileStore implements vscode.Disposable {
  private readonly loaded = new Map<string, LoadedProfile>();
  private activeId: string | undefined;
  private readonly changed = new vscode.EventEmitter<LoadedProfile | undefined>();
  readonly onDidChangeActive = this.changed.event;
  private seq = 0;

  get active(): LoadedProfile | undefined {
    return this.activeId ? this.loaded.get(this.activeId) : undefined;
  }

  all(): LoadedProfile[] {
    return [...this.loaded.values()];
  }

  get(id: string): LoadedProfile | undefined {
    return this.loaded.get(id);
  }

  /** `marks`: start-up times (epoch ms) of the read, for the page's figures. */
  async load(path: string, extra: Partial<LoadedProfile> = {}, marks?: Record<string, number>): Promise<LoadedProfile> {
    // A live run's profile so far is never the file's: the run folder read at its end is another profile.
    const existing = [...this.loaded.values()].find((p) => p.path === path && !p.live);
    if (existing) return existing;
    // The importers load with the first profile, not with the extension.
    const { readProfile } = await import('./readProfile');
    const { profile, run } = await readProfile(path, undefined, marks);
    const runDir = extra.runDir ?? run?.dir;
    return this.add(profile, path, { ...extra, ...(run ? { run } : {}), ...(runDir ? { runDir } : {}) });
  }

  add(profile: Profile, path: string, extra: Partial<LoadedProfile> = {}): LoadedProfile {
    const lp: LoadedProfile = { id: `p${++this.seq}`, label: basename(path), path, profile, ...extra };
    this.loaded.set(lp.id, lp);
    return lp;
  }

  setActive(p: LoadedProfile | undefined): void {
    this.activeId = p?.id;
    this.changed.fire(p);
  }

  remove(id: string): void {
    this.loaded.delete(id);
    if (this.activeId === id) this.setActive(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
