// Browser side of the flame graph viewer. It draws what the host sends and never reads profile files.
import { afterFirstPaint, mark, metricTo, setHostMarks } from './marks';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import { setWeightUnit } from './units';
import type { HostMessage, PersistedState, TimeRange, TreeKind, ViewOptions, WebviewMessage } from '../src/core/viewer/protocol';
import { FlameView } from './flame';
import { flameToolbar } from './toolbar';
import { tablesTab } from './tablesTab';
import { REQUESTS_TAB, routeKey, TIMELINE_TAB } from './pageKeys';
import { renderCrumbs as renderCrumbsBar, renderLegend as renderLegendBar, stopRunButton } from './legend';
import { openDiff } from './diff';
import { TreeTable } from './tables';
import { renderSummary } from './summary';
import { showDetails, showTooltip } from './details';
import { clear, h } from './dom';
import { applyExpansion, buildNodes, findNode, frameCache, SMALL, type FNode } from './tree';
import { mountTransforms, type TransformsUi } from './transformsUi';
import { processPicker, type ProcessPicker } from './processes';
import { TimelineView } from './timeline';
import { requestsTab, type RequestsView } from './requests';
import { ViewerState, type PageUi, type VsCodeApi } from './viewerState';
import { ThemePalette } from './palette';
import { tabHeader as header, tabPanel as panel } from './widgets';
import { FlameSearch } from './search';
import { announce, frameSentence } from './a11y';
import { showHelp, showTextDialog } from './helpOverlay';
import { liveBar } from './live';

declare function acquireVsCodeApi(): VsCodeApi;
mark('modules');
const st = new ViewerState(acquireVsCodeApi());
const post = (m: WebviewMessage) => st.post(m);
const save = (patch: Partial<PersistedState>) => st.save(patch);
const total = () => st.total();
const pal = new ThemePalette();
const colorOf = (n: FNode) => pal.colorOf(n);
const revealFrame = (frame: number) => post({ type: 'reveal', frame });
const metric = metricTo(post);

/** Set when the host opened this page as a comparison: it then gets every message. */
let diffHandler: ((m: HostMessage) => void) | undefined;
let transformsUi: TransformsUi | undefined;
let processesUi: ProcessPicker | undefined;
let timeline: TimelineView | undefined;
let requestsView: RequestsView | undefined;

// ---- layout ----
const app = document.getElementById('app')!;
const tooltipEl = h('div', { class: 'tooltip', attrs: { role: 'tooltip' } });
const errorEl = h('div', { class: 'error', attrs: { role: 'alert' } });
document.body.append(tooltipEl);
app.append(errorEl, h('div', { class: 'loading' }, app.dataset.loading ?? '…'));
// A panel opened for a run still going: Stop ends the run from here too (the profile then opens in place).
if (app.dataset.stop) app.append(stopRunButton(app.dataset.stop, () => post({ type: 'stopRun' })));

const charts: Record<TreeKind, HTMLDivElement> = {
  top: h('div', { class: 'chart', attrs: { tabindex: '0', 'data-tree': 'top' } }),
  bottom: h('div', { class: 'chart', attrs: { tabindex: '0', 'data-tree': 'bottom' } }),
};
let flames: Record<TreeKind, FlameView>;
let tables: Record<TreeKind, TreeTable>;
let ui: PageUi;

const finder = new FlameSearch(
  st,
  () => ui,
  () => flames,
);

function buildUi(): void {
  const s = st.strings;
  clear(app);
  app.append(errorEl);
  const tabs = document.createElement('vscode-tabs') as unknown as HTMLElement & { selectedIndex: number };

  const bar = flameToolbar(st, {
    post,
    search: () => finder.schedule(),
    resetZoom: () => flames[st.kind].resetZoom(),
    showTree,
    orientation: (o) => {
      save({ orientation: o });
      flames.top.setRootAtTop(o === 'icicle');
    },
    setOptions,
  });
  const { search, regex, matched, treeSelect, orientation } = bar;
  const crumbs = h('nav', { class: 'crumbs', attrs: { 'aria-label': s.a11yZoomPath } });
  const legend = h('div', { class: 'legend', attrs: { 'aria-label': s.legend } });
  const details = h('div', { class: 'details', attrs: { tabindex: '0' } }, s.hint);
  for (const c of Object.values(charts)) [c.role, c.ariaLabel] = ['application', s.a11yChart];
  const chartBox = h('div', { class: 'charts' }, charts.top, charts.bottom);

  const {
    el: tablesEl,
    tableSelect,
    filter,
    tableBoxes,
  } = tablesTab(s, {
    filter: (v) => {
      tables.top.setFilter(v);
      tables.bottom.setFilter(v);
    },
    shown: (k) => {
      if (!st.roots[k]) post({ type: 'needTree', tree: k });
    },
  });
  const summary = h('div', { class: 'summary', attrs: { tabindex: '0' } });

  tabs.append(
    header(s.tabFlame, 'flame'),
    panel(h('div', { class: 'flame-tab' }, bar.el, crumbs, chartBox, legend, details)),
    header(s.tabTables, 'tables'),
    panel(tablesEl),
    header(s.tabSummary, 'summary'),
    panel(summary),
  );
  timeline = new TimelineView(
    {
      post,
      strings: () => s,
      palette: () => pal.colors,
      range: () => transformsUi?.range(),
      setRange: (r) => {
        st.rangeAsked = performance.now();
        transformsUi?.setRange(r);
      },
      metric,
    },
    tooltipEl,
  );
  tabs.append(header(s.tabTimeline, 'timeline'), panel(timeline.el));
  // The offline page has no host to open a comparison in.
  if (st.offline) timeline.el.querySelector('.tl-compare')?.remove();
  const onTab = () => {
    if (tabs.selectedIndex === TIMELINE_TAB) timeline?.show();
    if (tabs.selectedIndex === REQUESTS_TAB) requestsView?.show();
  };
  const span = (r: TimeRange) => (transformsUi?.setRange(r), (tabs.selectedIndex = TIMELINE_TAB), onTab());
  requestsView = st.info?.requests ? requestsTab(s, tabs, post, span, () => (st.generation++, timeline?.samplesChanged())) : undefined;
  tabs.addEventListener('vsc-tabs-select', () => {
    save({ tab: String(tabs.selectedIndex) });
    onTab();
  });
  app.append(tabs);
  mountProcesses(tabs);
  ui = { tabs, search, regex, matched, crumbs, details, treeSelect, tableSelect, filter, tableBoxes, summary, legend, orientation };
  if (st.persisted.tab) tabs.selectedIndex = Number(st.persisted.tab);
  onTab();

  const flameHost = {
    color: colorOf,
    matchColor: () => pal.match,
    onSelect: (n: FNode, how: 'click' | 'key' | 'reveal', focus: boolean) => {
      showDetails(ui.details, n, s, total(), colorOf(n));
      announce(frameSentence(n, s, total()));
      if (how === 'click' && n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
    onZoom: (n: FNode) => renderCrumbs(n),
    requestExpand,
    tooltip: (n: FNode | undefined, ev?: MouseEvent) => showTooltip(tooltipEl, n, ev, s, total()),
    metric,
  };
  flames = {
    top: new FlameView(charts.top, st.persisted.orientation === 'icicle', flameHost),
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
  new ResizeObserver(() => flames[st.kind].resize()).observe(chartBox);
  showTree(st.kind);
  transformsUi = mountTransforms(app, {
    ...{ post, save, strings: () => s, newGeneration: () => void st.generation++, state: st.persisted, charts, flames, tableBoxes, tables },
    ...{ tab: () => ui.tabs.selectedIndex, kind: () => st.kind, color: colorOf, matchColor: () => pal.match },
    tooltip: (n, ev) => showTooltip(tooltipEl, n, ev, s, total()),
  });
}

/** The process picker, once the profile has several processes (a live run's may have them only later). */
function mountProcesses(tabs: HTMLElement): void {
  if (processesUi || !st.info) return;
  // Each choice is a new st.generation of trees, as a new transform stack is.
  processesUi = processPicker(st.info, st.strings, (threads) => {
    st.generation++;
    save({ threads: threads ?? undefined });
    post({ type: 'threads', threads });
    timeline?.samplesChanged();
  });
  if (processesUi) tabs.before(processesUi.el);
}

function renderLegend(): void {
  renderLegendBar(ui.legend, st.strings, st.info, pal.colors);
}

function renderCrumbs(n: FNode): void {
  renderCrumbsBar(ui.crumbs, n, (x) => flames[st.kind].zoomTo(x));
}

function showTree(k: TreeKind): void {
  st.kind = k;
  save({ tree: k });
  charts.top.hidden = k !== 'top';
  charts.bottom.hidden = k !== 'bottom';
  // The bottom-up tree is always an icicle: its st.roots are where the time is spent.
  ui.orientation.hidden = k !== 'top';
  if (ui.treeSelect.value !== k) ui.treeSelect.value = k;
  if (!st.roots[k]) post({ type: 'needTree', tree: k });
  else {
    flames[k].resize();
    if (flames[k].zoomed) renderCrumbs(flames[k].zoomed!);
  }
  finder.schedule();
}

function setOptions(patch: Partial<ViewOptions>): void {
  st.options = { ...st.options, ...patch };
  save({ options: st.options });
  st.generation++;
  post({ type: 'options', options: st.options });
}

function requestExpand(n: FNode, k: TreeKind = st.kind): void {
  const root = st.roots[k];
  if (!root) return;
  // A merged entry stands for its parent's children lighter than the threshold the host used.
  post({ type: 'expand', tree: k, generation: st.generation, node: n.host, small: n.frame === SMALL, minWeight: thresholds.get(n) ?? 0 });
}
/** The host's merge threshold for each merged entry, remembered from the tree it came in. */
const thresholds = new WeakMap<FNode, number>();

function onTree(m: Extract<HostMessage, { type: 'tree' }>, received: number): void {
  if (m.generation < st.generation) return;
  st.generation = m.generation;
  for (const [id, f] of Object.entries(m.frames)) frameCache.set(Number(id), f);
  const sub = buildNodes(m.data, st.strings);
  mark('built');
  const remember = (n: FNode) => {
    if (n.frame === SMALL) thresholds.set(n, m.data.minWeight);
    n.children?.forEach(remember);
  };
  remember(sub);
  const k = m.tree;
  const flame = flames[k];
  if (m.expand && st.roots[k]) {
    const root = st.roots[k]!;
    const zoom = applyExpansion(root, m.expand, sub, flame.zoomed);
    if (!zoom) return;
    flame.setRoot(root, zoom);
    tables[k].refresh();
    return;
  }
  st.roots[k] = sub;
  const revealed = m.reveal !== undefined ? findNode(sub, (n) => n.host === m.reveal && n.frame !== SMALL) : undefined;
  if (revealed) {
    ui.tabs.selectedIndex = 0;
    showTree(k);
  }
  flame.setRoot(sub, revealed);
  if (st.rangeAsked && k === 'top') {
    metric('range', performance.now() - st.rangeAsked);
    st.rangeAsked = 0;
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
  if (k === st.kind) finder.schedule();
  if (!st.firstPaintDone && k === 'top') {
    st.firstPaintDone = true;
    afterFirstPaint(m.data.node.length, m.hostMs, received, metric);
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
        diffHandler = openDiff(app, m, post, { orientation: st.persisted.orientation, save });
        break;
      }
      st.offline = !!m.offline;
      setHostMarks(m.hostMarks);
      st.strings = m.strings;
      st.info = m.info;
      setWeightUnit(st.info.unit);
      st.options = { ...m.options };
      st.persisted = { ...st.persisted, ...m.state, path: m.info.path };
      if (m.state?.tree) st.kind = m.state.tree;
      save({ path: m.info.path, options: st.options });
      document.body.dataset.profile = m.info.label;
      pal.read();
      buildUi();
      renderLegend();
      renderSummary(ui.summary, st.info, st.strings, pal.colors, revealFrame);
      break;
    case 'tree':
      if (ui) onTree(m, received);
      break;
    case 'transforms': {
      st.info = m.info;
      setWeightUnit(st.info.unit);
      // A live run's final profile comes this way too: its findings must select their frame as the first ones did.
      if (ui) renderSummary(ui.summary, st.info, st.strings, pal.colors, revealFrame);
      if (processesUi) processesUi.update(st.info);
      else if (ui) mountProcesses(ui.tabs);
      transformsUi?.onHost(m);
      requestsView?.refresh();
      // The call-tree transforms decide the Timeline's samples (the range only marks them): redraw when they change.
      const calls = JSON.stringify(m.transforms);
      if (calls !== st.timelineCalls) {
        st.timelineCalls = calls;
        timeline?.samplesChanged();
      } else timeline?.rangeChanged();
      break;
    }
    case 'timeline':
      timeline?.onHost(m);
      break;
    case 'requests':
      requestsView?.onHost(m);
      break;
    case 'sandwich':
      transformsUi?.onHost(m);
      break;
    case 'search':
      finder.onHost(m);
      break;
    case 'noSource':
      ui?.details.append(h('div', { class: 'no-source' }, m.reason));
      break;
    case 'accessibleText':
      showTextDialog(m.title, m.text, st.strings);
      break;
    case 'error':
      errorEl.textContent = m.message;
      break;
    case 'live':
      onLive(m);
      // The final profile took the live one's place: the page names it, as an 'init' would have.
      if (!m.live && st.info) document.body.dataset.profile = st.info.label;
      // The profile grew: the Timeline asks for its samples again.
      timeline?.samplesChanged();
      break;
  }
});
const onLive = liveBar(() => st.strings, post);

document.addEventListener('keydown', (e) => {
  if (!ui) return;
  routeKey(e, {
    tab: () => ui.tabs.selectedIndex,
    search: () => ui.search,
    filter: () => ui.filter,
    transforms: transformsUi,
    flame: () => flames[st.kind],
    timeline,
    help: () => showHelp(st.strings),
    accessibleView: () => post({ type: 'accessibleView', tree: st.kind }),
  });
});

pal.onThemeChange(() => {
  if (!ui) return;
  flames.top.redraw();
  flames.bottom.redraw();
  timeline?.draw();
  renderLegend();
});

post({ type: 'ready' });
mark('ready');
