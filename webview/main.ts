// Browser side of the flame graph viewer. It draws what the host sends and never reads profile files.
import { mark, pageStart, setHostMarks, startupMarks } from './marks';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import { setWeightUnit } from './units';
import type { HostMessage, PersistedState, ProfileInfo, TreeKind, ViewOptions, WebviewMessage } from '../src/core/viewer/protocol';
import { CATEGORIES } from '../src/core/viewer/protocol';
import { FlameView } from './flame';
import { orientationSelect, select, type Select } from './controls';
import { startDiff } from './diff';
import { sampleTypePicker } from './sampleType';
import { TreeTable } from './tables';
import { renderSummary } from './summary';
import { showDetails, showTooltip } from './details';
import { clear, fmt, h } from './dom';
import { applyExpansion, buildNodes, findNode, frameCache, pathOf, SMALL, type FNode, type Strings } from './tree';
import { mountTransforms, type TransformsUi } from './transformsUi';
import { processPicker, type ProcessPicker } from './processes';
import { TimelineView } from './timeline';

declare function acquireVsCodeApi(): {
  postMessage(m: WebviewMessage): void;
  getState(): PersistedState | undefined;
  setState(s: PersistedState): void;
};
mark('modules');
const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage) => vscode.postMessage(m);

let s: Strings = {};
let info: ProfileInfo | undefined;
let options: ViewOptions = {};
let state: PersistedState = vscode.getState() ?? { path: '' };
let generation = 0;
let kind: TreeKind = state.tree ?? 'top';
const roots: Partial<Record<TreeKind, FNode>> = {};
let palette: Record<string, string> = {};
let matchColor = '#e600e6';
let firstPaintDone = false;
/** Set when the host opened this page as a comparison: it then gets every message. */
let diffHandler: ((m: HostMessage) => void) | undefined;
/** The offline HTML export has no host to save files or open sources. */
let offline = false;
let transformsUi: TransformsUi | undefined;
let processesUi: ProcessPicker | undefined;
let timeline: TimelineView | undefined;
/** When the Timeline asked for a new range, until the flame graph for it is drawn (the benchmark's range figure). */
let rangeAsked = 0;

/** The Timeline comes after the flame graph, tables and summary tabs. */
const TIMELINE_TAB = 3;
const save = (patch: Partial<PersistedState>) => {
  state = { ...state, ...patch };
  vscode.setState(state);
};
const total = () => info?.totalWeight ?? 0;

// ---- colours from the theme: each category's CSS variable resolved through a hidden swatch ----
const paletteEl = h(
  'div',
  { class: 'palette', attrs: { 'aria-hidden': 'true' } },
  ...CATEGORIES.map((c) => h('span', { class: `cat-${c}` })),
  h('span', { class: 'cat-match' }),
  h('span', { class: 'cat-small' }),
);
document.body.append(paletteEl);
function readPalette(): void {
  palette = {};
  for (const el of Array.from(paletteEl.children)) palette[el.className.slice(4)] = getComputedStyle(el).backgroundColor;
  matchColor = palette.match;
}
const colorOf = (n: FNode): string => {
  if (n.frame === SMALL) return palette.small;
  if (n.frame < 0) return palette.program;
  return palette[frameCache.get(n.frame)?.category ?? 'unaccounted'] ?? palette.unaccounted;
};

// ---- layout ----
const app = document.getElementById('app')!;
const tooltipEl = h('div', { class: 'tooltip', attrs: { role: 'tooltip' } });
const errorEl = h('div', { class: 'error', attrs: { role: 'alert' } });
document.body.append(tooltipEl);
app.append(errorEl, h('div', { class: 'loading' }, app.dataset.loading ?? '…'));
// A panel opened for a run still going: Stop ends the run from here too (the profile then opens in place).
if (app.dataset.stop) {
  const stop = document.createElement('vscode-button');
  stop.setAttribute('icon', 'debug-stop');
  stop.className = 'stop-run';
  stop.textContent = app.dataset.stop;
  stop.addEventListener('click', () => {
    stop.setAttribute('disabled', '');
    post({ type: 'stopRun' });
  });
  app.append(stop);
}

const charts: Record<TreeKind, HTMLDivElement> = {
  top: h('div', { class: 'chart', attrs: { tabindex: '0', 'data-tree': 'top' } }),
  bottom: h('div', { class: 'chart', attrs: { tabindex: '0', 'data-tree': 'bottom' } }),
};
let flames: Record<TreeKind, FlameView>;
let tables: Record<TreeKind, TreeTable>;
let ui: {
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
};

function checkbox(label: string, checked: boolean, onChange: (v: boolean) => void): HTMLElement & { checked: boolean } {
  const el = document.createElement('vscode-checkbox') as unknown as HTMLElement & { checked: boolean };
  el.textContent = label;
  el.checked = checked;
  el.addEventListener('change', () => onChange(el.checked));
  return el;
}

function textfield(placeholder: string, onInput: (v: string) => void): HTMLInputElement {
  const el = document.createElement('vscode-textfield') as unknown as HTMLInputElement;
  el.setAttribute('placeholder', placeholder);
  el.setAttribute('aria-label', placeholder);
  el.addEventListener('input', () => onInput(el.value));
  return el;
}

function buildUi(): void {
  clear(app);
  app.append(errorEl);
  const tabs = document.createElement('vscode-tabs') as unknown as HTMLElement & { selectedIndex: number };
  const header = (label: string, id: string) => {
    const t = document.createElement('vscode-tab-header');
    t.setAttribute('slot', 'header');
    t.dataset.tab = id;
    t.textContent = label;
    return t;
  };
  const panel = (...kids: Node[]) => {
    const p = document.createElement('vscode-tab-panel');
    p.append(...kids);
    return p;
  };

  const search = textfield(s.search, () => scheduleSearch());
  search.classList.add('search');
  const regex = checkbox(s.regex, false, () => scheduleSearch());
  const matched = h('span', { class: 'matched', attrs: { 'aria-live': 'polite' } });
  const reset = document.createElement('vscode-button');
  reset.setAttribute('secondary', '');
  reset.setAttribute('icon', 'home');
  reset.textContent = s.reset;
  reset.addEventListener('click', () => flames[kind].resetZoom());
  const treeSelect = select<TreeKind>(
    [
      ['top', s.topDown],
      ['bottom', s.bottomUp],
    ],
    kind,
  );
  treeSelect.classList.add('tree-select');
  treeSelect.addEventListener('change', () => showTree(treeSelect.value as TreeKind));
  const orientation = orientationSelect(s, state.orientation ?? 'flame', (o) => {
    save({ orientation: o });
    flames.top.setRootAtTop(o === 'icicle');
  });
  const mergeBy = select<'function' | 'line'>(
    [
      ['function', s.byFunction],
      ['line', s.byLine],
    ],
    options.mergeBy ?? 'function',
  );
  mergeBy.classList.add('merge-by');
  mergeBy.addEventListener('change', () => setOptions({ mergeBy: mergeBy.value as 'function' | 'line' }));
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    treeSelect,
    orientation,
    search,
    regex,
    matched,
    reset,
    h('span', { class: 'grow' }),
    checkbox(s.hideNode, !!options.hideNodeInternals, (v) => setOptions({ hideNodeInternals: v })),
    checkbox(s.collapseDeps, !!options.collapseDependencies, (v) => setOptions({ collapseDependencies: v })),
    h('label', { class: 'inline' }, s.mergeBy),
    mergeBy,
  );
  const picker = offline ? undefined : sampleTypePicker(info, s.sampleType, post);
  if (picker) toolbar.prepend(picker);
  if (!offline) {
    const exportButton = document.createElement('vscode-button');
    exportButton.setAttribute('secondary', '');
    exportButton.setAttribute('icon', 'export');
    exportButton.setAttribute('title', s.exportHint);
    exportButton.classList.add('export');
    exportButton.textContent = s.export;
    exportButton.addEventListener('click', () => post({ type: 'export' }));
    toolbar.append(exportButton);
  }
  const crumbs = h('nav', { class: 'crumbs', attrs: { 'aria-label': 'zoom path' } });
  const legend = h('div', { class: 'legend', attrs: { 'aria-label': s.legend } });
  const details = h('div', { class: 'details', attrs: { 'aria-live': 'polite' } }, s.hint);
  const chartBox = h('div', { class: 'charts' }, charts.top, charts.bottom);

  const tableSelect = select<TreeKind>(
    [
      ['top', s.topDownTable],
      ['bottom', s.bottomUpTable],
    ],
    'top',
  );
  const filter = textfield(s.filter, (v) => {
    tables.top.setFilter(v);
    tables.bottom.setFilter(v);
  });
  const tableBoxes = { top: h('div', { class: 'table' }), bottom: h('div', { class: 'table' }) };
  tableBoxes.bottom.hidden = true;
  tableSelect.addEventListener('change', () => {
    const k = tableSelect.value as TreeKind;
    tableBoxes.top.hidden = k !== 'top';
    tableBoxes.bottom.hidden = k !== 'bottom';
    if (!roots[k]) post({ type: 'needTree', tree: k });
  });
  const summary = h('div', { class: 'summary' });

  tabs.append(
    header(s.tabFlame, 'flame'),
    panel(h('div', { class: 'flame-tab' }, toolbar, crumbs, chartBox, legend, details)),
    header(s.tabTables, 'tables'),
    panel(h('div', { class: 'tables-tab' }, h('div', { class: 'toolbar' }, tableSelect, filter), tableBoxes.top, tableBoxes.bottom)),
    header(s.tabSummary, 'summary'),
    panel(summary),
  );
  timeline = new TimelineView(
    {
      post,
      strings: () => s,
      palette: () => palette,
      range: () => transformsUi?.stack().find((t) => t.kind === 'range') as { from: number; to: number } | undefined,
      setRange: (r) => {
        rangeAsked = performance.now();
        const rest = transformsUi?.stack().filter((t) => t.kind !== 'range') ?? [];
        transformsUi?.set(r ? [{ kind: 'range', from: r.from, to: r.to }, ...rest] : rest);
      },
      metric,
    },
    tooltipEl,
  );
  // The offline export embeds the call tree, not the per-sample timeline.
  if (!offline) tabs.append(header(s.tabTimeline, 'timeline'), panel(timeline.el));
  const onTab = () => {
    if (tabs.selectedIndex === TIMELINE_TAB) timeline?.show();
  };
  tabs.addEventListener('vsc-tabs-select', () => {
    save({ tab: String(tabs.selectedIndex) });
    onTab();
  });
  app.append(tabs);
  // Each choice is a new generation of trees, as a new transform stack is.
  processesUi =
    info &&
    processPicker(info, s, (threads) => {
      generation++;
      save({ threads: threads ?? undefined });
      post({ type: 'threads', threads });
      timeline?.threadsChanged();
    });
  if (processesUi) tabs.before(processesUi.el);
  ui = { tabs, search, regex, matched, crumbs, details, treeSelect, tableSelect, filter, tableBoxes, summary, legend, orientation };
  if (state.tab) tabs.selectedIndex = Number(state.tab);
  onTab();

  const flameHost = {
    color: colorOf,
    matchColor: () => matchColor,
    onSelect: (n: FNode, how: 'click' | 'key' | 'reveal', focus: boolean) => {
      showDetails(ui.details, n, s, total(), colorOf(n));
      if (how === 'click' && n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
    onZoom: (n: FNode) => renderCrumbs(n),
    requestExpand,
    tooltip: (n: FNode | undefined, ev?: MouseEvent) => showTooltip(tooltipEl, n, ev, s, total()),
    metric,
  };
  flames = {
    top: new FlameView(charts.top, state.orientation === 'icicle', flameHost),
    bottom: new FlameView(charts.bottom, true, flameHost, 'zoomed'),
  };
  const tableHost = (k: TreeKind) => ({
    total,
    color: colorOf,
    requestExpand: (n: FNode) => requestExpand(n, k),
    onSelect: (n: FNode, focus: boolean) => {
      if (n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
  });
  tables = { top: new TreeTable(tableBoxes.top, s, tableHost('top')), bottom: new TreeTable(tableBoxes.bottom, s, tableHost('bottom')) };
  new ResizeObserver(() => flames[kind].resize()).observe(chartBox);
  showTree(kind);
  const parts = {
    post,
    save,
    strings: () => s,
    newGeneration: () => void generation++,
    state,
    charts,
    flames,
    tableBoxes,
    tables,
    tab: () => ui.tabs.selectedIndex,
    kind: () => kind,
    color: colorOf,
    matchColor: () => matchColor,
  };
  transformsUi = mountTransforms(app, { ...parts, tooltip: (n, ev) => showTooltip(tooltipEl, n, ev, s, total()) });
}

function renderLegend(): void {
  clear(ui.legend);
  ui.legend.append(h('span', { class: 'dim' }, `${s.legend}:`));
  const present = new Set([...frameCache.values()].map((f) => f.category));
  for (const c of CATEGORIES) {
    if (!present.has(c) && !(info && info.categories[c] > 0)) continue;
    const sw = h('span', { class: 'swatch' });
    sw.style.backgroundColor = palette[c];
    ui.legend.append(h('span', { class: 'item' }, sw, s[`cat.${c}`]));
  }
}

function renderCrumbs(n: FNode): void {
  clear(ui.crumbs);
  pathOf(n).forEach((x, i, all) => {
    if (i) ui.crumbs.append(h('span', { class: 'sep codicon codicon-chevron-right' }));
    const b = h('button', { class: 'crumb', attrs: { type: 'button' } }, x.name);
    if (i === all.length - 1) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', () => flames[kind].zoomTo(x));
    ui.crumbs.append(b);
  });
}

function showTree(k: TreeKind): void {
  kind = k;
  save({ tree: k });
  charts.top.hidden = k !== 'top';
  charts.bottom.hidden = k !== 'bottom';
  // The bottom-up tree is always an icicle: its roots are where the time is spent.
  ui.orientation.hidden = k !== 'top';
  if (ui.treeSelect.value !== k) ui.treeSelect.value = k;
  if (!roots[k]) post({ type: 'needTree', tree: k });
  else {
    flames[k].resize();
    if (flames[k].zoomed) renderCrumbs(flames[k].zoomed!);
  }
  scheduleSearch();
}

function setOptions(patch: Partial<ViewOptions>): void {
  options = { ...options, ...patch };
  save({ options });
  generation++;
  post({ type: 'options', options });
}

function requestExpand(n: FNode, k: TreeKind = kind): void {
  const root = roots[k];
  if (!root) return;
  // A merged entry stands for its parent's children lighter than the threshold the host used.
  post({ type: 'expand', tree: k, generation, node: n.host, small: n.frame === SMALL, minWeight: thresholds.get(n) ?? 0 });
}
/** The host's merge threshold for each merged entry, remembered from the tree it came in. */
const thresholds = new WeakMap<FNode, number>();

let searchTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleSearch(): void {
  if (!ui) return;
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, 120);
}
function runSearch(): void {
  const term = ui.search.value;
  const useRegex = ui.regex.checked;
  if (!term) {
    flames.top.search(undefined);
    flames.bottom.search(undefined);
    ui.matched.textContent = '';
    return;
  }
  let test: (x: string) => boolean;
  if (useRegex) {
    try {
      const re = new RegExp(term, 'i');
      test = (x) => re.test(x);
    } catch (e) {
      ui.matched.textContent = fmt(s.badRegex, (e as Error).message);
      return;
    }
  } else {
    const lower = term.toLowerCase();
    test = (x) => x.toLowerCase().includes(lower);
  }
  flames[kind].search((n) => test(frameCache.get(n.frame)?.name ?? n.name));
  post({ type: 'search', tree: kind, term, regex: useRegex });
}

function metric(name: string, ms: number): void {
  document.body.dataset[`${name}Ms`] = ms.toFixed(1);
  post({ type: 'metric', name, ms });
}

function onTree(m: Extract<HostMessage, { type: 'tree' }>, received: number): void {
  if (m.generation < generation) return;
  generation = m.generation;
  for (const [id, f] of Object.entries(m.frames)) frameCache.set(Number(id), f);
  const sub = buildNodes(m.data, s);
  mark('built');
  const remember = (n: FNode) => {
    if (n.frame === SMALL) thresholds.set(n, m.data.minWeight);
    n.children?.forEach(remember);
  };
  remember(sub);
  const k = m.tree;
  const flame = flames[k];
  if (m.expand && roots[k]) {
    const root = roots[k]!;
    const zoom = applyExpansion(root, m.expand, sub, flame.zoomed);
    if (!zoom) return;
    flame.setRoot(root, zoom);
    tables[k].refresh();
    return;
  }
  roots[k] = sub;
  const revealed = m.reveal !== undefined ? findNode(sub, (n) => n.host === m.reveal && n.frame !== SMALL) : undefined;
  if (revealed) {
    ui.tabs.selectedIndex = 0;
    showTree(k);
  }
  flame.setRoot(sub, revealed);
  if (rangeAsked && k === 'top') {
    metric('range', performance.now() - rangeAsked);
    rangeAsked = 0;
  }
  if (revealed) {
    flame.select(revealed, 'reveal');
    if (revealed.pruned) requestExpand(revealed, k);
    charts[k].focus();
  }
  mark('drawn');
  tables[k].setRoot(sub);
  renderLegend();
  mark('tables');
  if (k === kind) scheduleSearch();
  if (!firstPaintDone && k === 'top') {
    firstPaintDone = true;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const now = performance.now();
        document.body.dataset.nodes = String(m.data.node.length);
        document.body.dataset.hostMs = m.hostMs.toFixed(1);
        metric('render', now - received);
        metric('firstPaint', now);
        document.body.dataset.startup = startupMarks();
        document.body.dataset.pageMs = pageStart().toFixed(1);
        document.body.dataset.timeOrigin = performance.timeOrigin.toFixed(0);
      }),
    );
  }
}

window.addEventListener('message', (e: MessageEvent<HostMessage>) => {
  const m = e.data;
  const received = performance.now();
  mark(m.type);
  if (diffHandler) {
    diffHandler(m);
    return;
  }
  switch (m.type) {
    case 'init':
      if (m.kind === 'diff') {
        save({ path: '', diff: { before: m.before.path, after: m.after.path } });
        diffHandler = startDiff(app, m, post, {
          orientation: state.orientation ?? 'flame',
          remember: (orientation) => save({ orientation }),
        });
        break;
      }
      offline = !!m.offline;
      setHostMarks(m.hostMarks);
      s = m.strings;
      info = m.info;
      setWeightUnit(info.unit);
      options = { ...m.options };
      state = { ...state, ...m.state, path: m.info.path };
      if (m.state?.tree) kind = m.state.tree;
      save({ path: m.info.path, options });
      document.body.dataset.profile = m.info.label;
      readPalette();
      buildUi();
      renderLegend();
      renderSummary(ui.summary, info, s, palette, (frame) => post({ type: 'reveal', frame }));
      break;
    case 'tree':
      if (ui) onTree(m, received);
      break;
    case 'transforms':
      info = m.info;
      setWeightUnit(info.unit);
      if (ui) renderSummary(ui.summary, info, s, palette);
      processesUi?.update(info);
      transformsUi?.onHost(m);
      timeline?.rangeChanged();
      break;
    case 'timeline':
      timeline?.onHost(m);
      break;
    case 'sandwich':
      transformsUi?.onHost(m);
      break;
    case 'search':
      if (!ui || m.term !== ui.search.value) break;
      ui.matched.textContent = m.error ? fmt(s.badRegex, m.error) : fmt(s.matched, (100 * m.fraction).toFixed(m.fraction >= 0.1 ? 1 : 2));
      ui.matched.dataset.fraction = String(m.fraction);
      break;
    case 'noSource':
      ui?.details.append(h('div', { class: 'no-source' }, m.reason));
      break;
    case 'error':
      errorEl.textContent = m.message;
      break;
  }
});

document.addEventListener('keydown', (e) => {
  if (!ui) return;
  const t = e.target as HTMLElement;
  const typing = /^(INPUT|TEXTAREA|VSCODE-TEXTFIELD|VSCODE-SINGLE-SELECT)$/.test(t.tagName);
  if (typing) {
    if (e.key === 'Escape') (t as HTMLElement).blur();
    return;
  }
  if (transformsUi?.key(e)) {
    e.preventDefault();
    return;
  }
  if (e.key === '/') {
    e.preventDefault();
    (ui.tabs.selectedIndex === 1 ? ui.filter : ui.search).focus();
    return;
  }
  if (ui.tabs.selectedIndex === 0 && flames[kind].key(e)) e.preventDefault();
  if (ui.tabs.selectedIndex === TIMELINE_TAB && timeline?.key(e)) e.preventDefault();
});

// Theme switches change the CSS variables: re-resolve the palette and repaint.
new MutationObserver(() => {
  readPalette();
  if (!ui) return;
  flames.top.redraw();
  flames.bottom.redraw();
  timeline?.draw();
  renderLegend();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

post({ type: 'ready' });
mark('ready');
