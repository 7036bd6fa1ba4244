// Messages between the viewer host and its webview. No `vscode` import: the webview bundle shares these types.
import type { Category, Frame } from '../model/frame';
import type { CompactTree } from '../model/prune';
import type { ViewOptions } from '../model/viewOptions';
import type { ProcessRow } from '../model/processes';
import type { WeightUnit } from '../model/units';
export type { WeightUnit } from '../model/units';
import type { FunctionKey, Transform } from '../model/transforms';
import type { Activity, TimeRange } from '../model/timeline';
import type { Finding } from '../findings/types';
import type { RequestsSummary } from '../model/requests';

export type { CompactTree, FunctionKey, ProcessRow, TimeRange, Transform, ViewOptions };
// The page reads the category list from here so it never imports the model.
export { CATEGORIES } from '../model/frame';
// How the page names a frame's function and package in the transforms it asks for.
export { keyOf, packageOf } from '../model/transforms';

/** The two halves of the sandwich view: the chosen function's callers (inverted) and its callees. */
export type SandwichSide = 'callers' | 'callees';

/**
 * The Timeline asks for [from, to) (ms from the profile's start; the whole span when absent) drawn `width`
 * pixels wide; `overview` also wants the activity of the whole span.
 */
export interface TimelineRequest {
  type: 'timeline';
  from?: number;
  to?: number;
  width: number;
  overview?: boolean;
}

/** Samples per bucket and category: the model's `Activity` without its sample count. */
export type ActivityInfo = Omit<Activity, 'samples'>;

/** A run event on the time axis: `kind` names it (`start`, `port`, `loadStart`, `loadEnd`, `stop`), `at` is ms from the profile's start. */
export interface TimeMarker {
  kind: string;
  at: number;
  label: string;
}

/** A sampled track (event-loop delay, heap used): values at times, ms from the profile's start. */
export interface TimeTrack {
  kind: 'loopDelay' | 'heapUsed';
  pid?: number;
  times: number[];
  values: number[];
}

/** What a run folder knows about time (launch/run/runTimeline): its markers and every process's tracks. */
export interface TimeFacts {
  markers: TimeMarker[];
  tracks: TimeTrack[];
}

/**
 * The Timeline's answer. `noTime` says why there is no time axis (folded stacks, several threads). The
 * time-ordered chart is in parallel arrays (`frame`: profile frames, described in `frames`).
 */
export interface TimelineData {
  type: 'timeline';
  span: { start: number; end: number } | null;
  noTime?: 'folded' | 'threads' | 'none';
  from: number;
  to: number;
  overview?: ActivityInfo;
  /** With `overview`, for several threads (a run's processes): each one's activity, the earliest to run first. */
  lanes?: { thread: string; activity: ActivityInfo }[];
  activity?: ActivityInfo;
  boxes: { depth: number[]; start: number[]; end: number[]; frame: number[] };
  depth: number;
  truncated: boolean;
  frames: Record<number, FrameInfo>;
  markers?: TimeMarker[];
  tracks?: TimeTrack[];
  /** Said above the chart (the offline page's thinned timeline). */
  note?: string;
  hostMs: number;
}

/** `top`: call tree (flame graph); `bottom`: bottom-up tree (inverted icicle). */
export type TreeKind = 'top' | 'bottom';

/** A frame as the webview gets it (the model's own shape); strings are shown as text, never as markup. */
export type FrameInfo = Frame;

export interface ProfileInfo {
  label: string;
  path: string;
  format: string;
  mode?: string;
  command?: string;
  nodeVersion?: string;
  v8Version?: string;
  durationMs: number | null;
  intervalMs?: number;
  /** Heap profiles: average bytes between two samples. */
  intervalBytes?: number;
  totalWeight: number;
  threads: { name: string; samples: number }[];
  warnings: string[];
  categories: Record<Category, number>;
  tick: { javascript: number; cpp: number; gc: number; sharedLibraries: number; unaccounted: number; other: number };
  /** What the profile says is wrong (core/findings); `frame` is a profile frame for a `reveal` message. */
  findings?: FindingInfo[];
  /** pprof: the sample types the file has and the one shown (the page offers a picker when there are several). */
  sampleTypes?: string[];
  sampleType?: string;
  /** A profile of several processes or threads: the picker's rows (shares of `allWeight`), and the threads shown (null: all). */
  processes?: ProcessRow[];
  shownThreads?: string[] | null;
  allWeight?: number;
  /** What the weights count (bytes for a heap profile); samples when not given. */
  unit?: WeightUnit;
  /** The run recorded the HTTP requests its processes served: the page shows the Requests tab. */
  requests?: boolean;
}

/** The Requests tab's figures (per route, the slowest requests) and the routes the views keep (empty: every sample). */
export interface RequestsData {
  type: 'requests';
  summary: RequestsSummary | null;
  routes: string[];
}

/** A finding as the page gets it: the model's own shape (core/findings); `frame` is a profile frame for `reveal`. */
export type FindingInfo = Finding;

/** Persisted by the webview (`setState`) and handed back to the serializer after a reload. */
export interface PersistedState {
  path: string;
  /** A comparison's two profile files, for reopening it after a reload. */
  diff?: { before: string; after: string; beforeRange?: { from: number; to: number }; afterRange?: { from: number; to: number } };
  options?: ViewOptions;
  tree?: TreeKind;
  tab?: string;
  /** The stack of call-tree transforms, in the order applied. */
  transforms?: Transform[];
  /** The time range the views show. */
  range?: TimeRange;
  /** The function the sandwich view was open on. */
  sandwich?: FunctionKey;
  /** How the top-down flame graph and the comparison are drawn: root at the bottom (flame) or at the top (icicle). */
  orientation?: Orientation;
  /** The threads the process picker keeps; absent: all. */
  threads?: string[];
  /** The HTTP routes the Requests tab keeps; absent: every sample. */
  routes?: string[];
}

export type Orientation = 'flame' | 'icicle';

/** One side of a comparison. */
export interface DiffSide {
  label: string;
  path: string;
  format: string;
  totalWeight: number;
  /** What its weights count; samples when not given. */
  unit?: WeightUnit;
  /** The time range of the file's profile this side stands for (ms from its start), when it is one. */
  range?: { from: number; to: number };
}

/** A row of the biggest-changes table: shares (0..1) of each profile's samples with the function on the stack. */
export interface DiffChangeInfo {
  name: string;
  file: string;
  line: number;
  category: Category;
  before: number;
  after: number;
  delta: number;
  /** The change of its own share (its self time and the native code it calls): the rows' order. */
  ownDelta?: number;
  /** After − before in the profiles' unit (bytes of two heap profiles), when both count the same thing. */
  growth?: number;
  /** A frame of the differential graph for this function (to open its source), or -1. */
  frame: number;
}

/** `after`: widths are the after profile's shares (what runs now); `before`: what used to run, so removed towers show. */
export type SizeBy = 'after' | 'before';

/**
 * `kind` says which viewer mode the panel is in; a differential mode adds its own kind and
 * fields (per-node deltas) without changing the single-profile messages.
 */
export type HostMessage =
  | {
      type: 'init';
      kind: 'single';
      info: ProfileInfo;
      options: ViewOptions;
      strings: Record<string, string>;
      state?: PersistedState;
      offline?: boolean;
      /** When the host opened the panel, read the file and answered (epoch ms), for the start-up benchmark line. */
      hostMarks?: Record<string, number>;
      /** A live run's read: the page knows from its first paint that a final profile will replace it. */
      live?: boolean;
    }
  /** The profile's findings, looked for after the first answer (the Summary shows them when they come). */
  | { type: 'findings'; findings: FindingInfo[] }
  | { type: 'init'; kind: 'diff'; before: DiffSide; after: DiffSide; changes: DiffChangeInfo[]; strings: Record<string, string> }
  | {
      /** The differential tree: `data.total`/`self` are shares of the `sizeBy` profile; `before`/`after` per entry are total shares of each. */
      type: 'diffTree';
      sizeBy: SizeBy;
      data: CompactTree;
      before: number[];
      after: number[];
      frames: Record<number, FrameInfo>;
      expand?: { node: number; small: boolean };
      hostMs: number;
    }
  | {
      type: 'tree';
      tree: TreeKind;
      /** Bumped when the toggles change; replies for an older generation are dropped. */
      generation: number;
      data: CompactTree;
      frames: Record<number, FrameInfo>;
      /** Set when this replaces the children of one entry: the host node it was asked for. */
      expand?: { node: number; small: boolean };
      /** Host node to select and zoom to once drawn. */
      reveal?: number;
      /** Host time spent building this message, for the benchmark line. */
      hostMs: number;
    }
  | {
      /**
       * The transform stack now applied (trees for it follow), with the profile's facts after it. `error`
       * (`length`, `nested`, `backreference`, `syntax`) says why an Exclude pattern was refused; the stack is then the old one.
       */
      type: 'transforms';
      generation: number;
      transforms: Transform[];
      /** The time range the views show (absent: the whole span). */
      range?: TimeRange;
      /** The HTTP routes whose requests' samples the views keep, as the Requests tab picked them (absent: every sample). */
      routes?: string[];
      info: ProfileInfo;
      error?: { reason: string; detail: string };
    }
  | {
      /** The sandwich view for one function: both halves, or (with `expand`) more detail of one. */
      type: 'sandwich';
      generation: number;
      fn: FunctionKey;
      callers?: CompactTree;
      callees?: CompactTree;
      expand?: { side: SandwichSide; node: number; small: boolean; data: CompactTree };
      frames: Record<number, FrameInfo>;
    }
  | { type: 'search'; term: string; samples: number; fraction: number; error?: string }
  | TimelineData
  | RequestsData
  | { type: 'noSource'; frame: number; reason: string }
  /** The Accessible View's text, for a page whose host has no editor to open it in (the offline page shows it itself). */
  | { type: 'accessibleText'; title: string; text: string }
  | { type: 'error'; message: string }
  /** A live run's view was replaced by a newer read (`live`), or by the final profile at exit (`live: false`). */
  /** `untimed`: the profile has no sample times (a heap profile), so no "last N s" window applies. */
  | { type: 'live'; live: boolean; marks?: number; restarts?: number[]; untimed?: boolean };

/** What every viewer page sends, single or comparison. */
type PageMessage =
  | { type: 'ready' }
  /** `raw`: `frame` is a profile frame (the Timeline's), not one of the current view's. */
  | { type: 'open'; frame: number; focus: boolean; raw?: boolean }
  | { type: 'search'; tree: TreeKind; term: string; regex: boolean }
  | { type: 'metric'; name: string; ms: number }
  /** The toolbar's Export button: the host asks for a format and a file. */
  | { type: 'export' };

/** The single-profile page (panel and offline export). */
export type ViewerMessage =
  | PageMessage
  /** The waiting page's Stop, while its profile is still being recorded. */
  | { type: 'stopRun' }
  /** The live view's Mark: a named marker on the run's Timeline, now. */
  | { type: 'mark' }
  /**
   * The live view's window: only the last `seconds` of the run (null: all of it); `restart`: from now on (a marker
   * too); `since`: from the last restart again.
   */
  | { type: 'liveWindow'; seconds: number | null; restart?: boolean; since?: boolean }
  | { type: 'options'; options: ViewOptions }
  | { type: 'transforms'; transforms: Transform[] }
  /** The Timeline's selection; null: the whole span again. */
  | { type: 'range'; range: TimeRange | null }
  | { type: 'sandwich'; fn: FunctionKey }
  | { type: 'sandwichExpand'; generation: number; side: SandwichSide; node: number; small: boolean; minWeight: number }
  | { type: 'needTree'; tree: TreeKind }
  | { type: 'expand'; tree: TreeKind; generation: number; node: number; small: boolean; minWeight: number }
  /** Select and zoom to a profile frame (a finding's), as the editor's CodeLens does. */
  | { type: 'reveal'; frame: number }
  | { type: 'sampleType'; sampleType: string }
  /** Alt+F2 or the toolbar's button: the view as plain text (the hot path, the findings, the top functions). */
  | { type: 'accessibleView'; tree: TreeKind }
  /** The process picker's choice of threads (a process is all its threads); null: all. */
  | { type: 'threads'; threads: string[] | null }
  | TimelineRequest
  /** The Requests tab asks for its figures; `routes` keeps only the samples of those routes' requests (null: all). */
  | { type: 'requests' }
  | { type: 'routes'; routes: string[] | null }
  /** The Timeline's two ranges of this profile (ms from its start), opened as a comparison. */
  | { type: 'compareRanges'; before: { from: number; to: number }; after: { from: number; to: number } };

/** The comparison page. */
export type DiffMessage =
  | PageMessage
  | { type: 'sizeBy'; sizeBy: SizeBy }
  | { type: 'diffExpand'; sizeBy: SizeBy; node: number; small: boolean; minWeight: number }
  /** Alt+F2: the comparison as plain text (the two profiles, the biggest changes). */
  | { type: 'accessibleView' };

export type WebviewMessage = ViewerMessage | DiffMessage;

/**
 * The `default:` of a dispatch over one of the unions above: it only compiles when every message type has its
 * case, and at run time (a page from another version) it names the type for the log instead of failing silently.
 */
export function unhandledMessage(m: never): string {
  const type = (m as { type?: unknown } | null)?.type;
  return `unknown viewer message ${JSON.stringify(typeof type === 'string' ? type.slice(0, 40) : typeof type)}`;
}

/** The page says weights as the host does ("12.4 MB"): the one formatter, not a copy. */
export { formatWeight } from '../model/units';
