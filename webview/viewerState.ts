// The viewer page's state in one place: what the host said, what the user chose, and what is drawn. The page's
// modules read it from here instead of from module-level variables of main.ts.
import type { HostMessage, PersistedState, ProfileInfo, TreeKind, ViewOptions, WebviewMessage } from '../src/core/viewer/protocol';
import type { Select } from './controls';
import type { FlameView } from './flame';
import type { ProcessPicker } from './processes';
import type { RequestsView } from './requests';
import type { TreeTable } from './tables';
import type { TimelineView } from './timeline';
import type { Weights } from './units';
import type { TransformsUi } from './transformsUi';
import { FrameTable, type FNode, type Strings } from './tree';

export interface VsCodeApi {
  postMessage(m: WebviewMessage): void;
  getState(): PersistedState | undefined;
  setState(s: PersistedState): void;
}

export class ViewerState {
  strings: Strings = {};
  info: ProfileInfo | undefined;
  options: ViewOptions = {};
  /** What survives a reload of the page (VS Code keeps it with the webview). */
  persisted: PersistedState;
  /** Trees of an older generation (before another transform stack, option or process choice) are dropped. */
  generation = 0;
  /** The tree the flame graph shows. */
  kind: TreeKind;
  readonly roots: Partial<Record<TreeKind, FNode>> = {};
  /** Every frame the host has sent this page. */
  readonly frames = new FrameTable();
  /** The views, once main.ts's buildUi made them at the host's 'init' (`ui` unset until then). */
  readonly views = {} as PageViews;
  /** The offline HTML export has no host to save files or open sources. */
  offline = false;
  firstPaintDone = false;
  /** When the Timeline asked for a new range, until the flame graph for it is drawn (the benchmark's range figure). */
  rangeAsked = 0;
  /** The call-tree transforms the Timeline's samples went through, as JSON (the range does not change them). */
  timelineCalls = '[]';

  constructor(private readonly api: VsCodeApi) {
    this.persisted = api.getState() ?? { path: '' };
    this.kind = this.persisted.tree ?? 'top';
  }

  post(m: WebviewMessage): void {
    // The Requests tab's choice is kept for a reload as the process picker's is (the host reads it back).
    if (m.type === 'routes') this.save({ routes: m.routes ?? undefined });
    this.api.postMessage(m);
  }

  save(patch: Partial<PersistedState>): void {
    this.persisted = { ...this.persisted, ...patch };
    this.api.setState(this.persisted);
  }

  /** The weight of the whole profile as shown (100 % in the views). */
  total(): number {
    return this.info?.totalWeight ?? 0;
  }

  /** How the views show a weight: the share of the whole, and the figure in the profile's unit (bytes, ms, samples). */
  weights(): Weights {
    return { total: this.total(), unit: this.info?.unit };
  }
}

/** The page's elements that its parts read and write after they are built (main.ts's buildUi). */
export interface PageUi {
  tabs: HTMLElement & { selectedIndex: number };
  search: HTMLInputElement;
  regex: HTMLElement & { checked: boolean };
  matched: HTMLElement;
  crumbs: HTMLElement;
  details: HTMLElement;
  treeSelect: Select;
  tableSelect: Select;
  filter: HTMLInputElement;
  tableBoxes: Record<TreeKind, HTMLElement>;
  summary: HTMLElement;
  legend: HTMLElement;
  orientation: Select;
}

/** What the page drew: the parts of the page its messages and keys act on. */
export interface PageViews {
  ui: PageUi;
  flames: Record<TreeKind, FlameView>;
  tables: Record<TreeKind, TreeTable>;
  timeline?: TimelineView;
  transforms?: TransformsUi;
  /** Only once the profile has several processes. */
  processes?: ProcessPicker;
  /** Only for a profile with requests. */
  requests?: RequestsView;
  /** Set when the host opened the page as a comparison: it then gets every message. */
  diff?: (m: HostMessage) => void;
}
