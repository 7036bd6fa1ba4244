// Browser side of the flame graph viewer. It draws what the host sends and never reads profile files.
import { afterFirstPaint, afterPaint, mark, metricTo, setHostMarks } from './marks';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
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
import { applyExpansion, buildNodes, findNode, SMALL, type FNode } from './tree';
import { mountTransforms } from './transformsUi';
import { processPicker } from './processes';
import { TimelineView } from './timeline';
import { requestsTab } from './requests';
import { ViewerState, type VsCodeApi } from './viewerState';
import { ThemePalette } from './palette';
import { tabHeader as header, tabPanel as panel } from './widgets';
import { FlameSearch } from './search';
import { announce, frameSentence } from './a11y';
import { showHelp, showTextDialog } from './helpOverlay';
import { liveBar } from './live';

declare function acquireVsCodeApi(): VsCodeApi;
mark('modules');
const st = new ViewerState(acquireVsCodeApi());
/** The page's views, made by buildUi (a comparison page has only `diff`). */
const v = st.views;
const post = (m: WebviewMessage) => st.post(m);
const save = (patch: Partial<PersistedState>) => st.save(patch);
const total = () => st.total();
const pal = new ThemePalette();
const colorOf = (n: FNode) => pal.colorOf(n);
const revealFrame = (frame: number) => post({ type: 'reveal', frame });
const metric = metricTo(post);

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

const finder = new FlameSearch(st);
/** Adds the Requests tab once the profile has requests (set by buildUi, which holds the tabs). */
let mountRequests: (() => void) | undefined;

function buildUi(): void {
  const s = st.strings;
  clear(app);
  app.append(errorEl);
  const tabs = document.createElement('vscode-tabs') as unknown as HTMLElement & { selectedIndex: number };

  const bar = flameToolbar(st, {
    post,
    search: () => finder.schedule(),
    resetZoom: () => v.flames[st.kind].resetZoom(),
    showTree,
    orientation: (o) => {
      save({ orientation: o });
      v.flames.top.setRootAtTop(o === 'icicle');
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
    filter: (text) => {
      v.tables.top.setFilter(text);
      v.tables.bottom.setFilter(text);
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
  v.timeline = new TimelineView(
    {
      post,
      strings: () => s,
      palette: () => pal.colors,
      range: () => v.transforms?.range(),
      setRange: (r) => {
        st.rangeAsked = performance.now();
        v.transforms?.setRange(r);
      },
      metric,
    },
    tooltipEl,
  );
  tabs.append(header(s.tabTimeline, 'timeline'), panel(v.timeline.el));
  // The offline page has no host to open a comparison in.
  if (st.offline) v.timeline.el.querySelector('.tl-compare')?.remove();
  const onTab = () => {
    if (tabs.selectedIndex === TIMELINE_TAB) v.timeline?.show();
    if (tabs.selectedIndex === REQUESTS_TAB) v.requests?.show();
  };
  const span = (r: TimeRange) => (v.transforms?.setRange(r), (tabs.selectedIndex = TIMELINE_TAB), onTab());
  v.requests = undefined;
  // A new choice of routes (the tab's boxes, the chip's ×) is a new generation of trees, as a choice of processes is.
  const routesChanging = () => {
    st.generation++;
    v.timeline?.samplesChanged();
  };
  // A live view may start before the app served a request: the tab comes with the first update that has some.
  mountRequests = () => {
    if (!v.requests && st.info?.requests)
      v.requests = requestsTab(st.strings, tabs, post, span, routesChanging, st.info.format === 'v8log');
  };
  mountRequests();
  tabs.addEventListener('vsc-tabs-select', () => {
    save({ tab: String(tabs.selectedIndex) });
    onTab();
  });
  app.append(tabs);
  mountProcesses(tabs);
  v.ui = { tabs, search, regex, matched, crumbs, details, treeSelect, tableSelect, filter, tableBoxes, summary, legend, orientation };
  if (st.persisted.tab) tabs.selectedIndex = Number(st.persisted.tab);
  onTab();

  const flameHost = {
    color: colorOf,
    matchColor: () => pal.match,
    onSelect: (n: FNode, how: 'click' | 'key' | 'reveal', focus: boolean) => {
      showDetails(v.ui.details, n, s, st.weights(), colorOf(n));
      announce(frameSentence(n, s, total()));
      if (how === 'click' && n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
    onZoom: (n: FNode) => renderCrumbs(n),
    requestExpand,
    tooltip: (n: FNode | undefined, ev?: MouseEvent) => showTooltip(tooltipEl, n, ev, s, st.weights()),
    metric,
  };
  v.flames = {
    top: new FlameView(charts.top, st.persisted.orientation === 'icicle', flameHost),
    bottom: new FlameView(charts.bottom, true, flameHost, 'zoomed'),
  };
  const tableHost = (k: TreeKind) => ({
    total,
    unit: () => st.info?.unit,
    color: colorOf,
    requestExpand: (n: FNode) => requestExpand(n, k),
    onSelect: (n: FNode, focus: boolean) => {
      if (n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
  });
  v.tables = { top: new TreeTable(tableBoxes.top, s, tableHost('top')), bottom: new TreeTable(tableBoxes.bottom, s, tableHost('bottom')) };
  new ResizeObserver(() => v.flames[st.kind].resize()).observe(chartBox);
  showTree(st.kind);
  v.transforms = mountTransforms(app, {
    ...{ post, save, strings: () => s, newGeneration: () => void st.generation++, state: st.persisted, charts, tableBoxes },
    clearRoutes: () => {
      routesChanging();
      post({ type: 'routes', routes: null });
    },
    ...{ flames: v.flames, tables: v.tables, frames: st.frames },
    ...{ tab: () => v.ui.tabs.selectedIndex, kind: () => st.kind, color: colorOf, matchColor: () => pal.match },
    tooltip: (n, ev) => showTooltip(tooltipEl, n, ev, s, st.weights()),
  });
}

/** The process picker, once the profile has several processes (a live run's may have them only later). */
function mountProcesses(tabs: HTMLElement): void {
  if (v.processes || !st.info) return;
  // Each choice is a new st.generation of trees, as a new transform stack is.
  v.processes = processPicker(st.info, st.strings, (threads) => {
    st.generation++;
    save({ threads: threads ?? undefined });
    post({ type: 'threads', threads });
    v.timeline?.samplesChanged();
  });
  if (v.processes) tabs.before(v.processes.el);
}

function renderLegend(): void {
  renderLegendBar(v.ui.legend, st.strings, st.info, pal.colors, st.frames);
}

function renderCrumbs(n: FNode): void {
  renderCrumbsBar(v.ui.crumbs, n, (x) => v.flames[st.kind].zoomTo(x));
}

function showTree(k: TreeKind): void {
  st.kind = k;
  save({ tree: k });
  charts.top.hidden = k !== 'top';
  charts.bottom.hidden = k !== 'bottom';
  // The bottom-up tree is always an icicle: its st.roots are where the time is spent.
  v.ui.orientation.hidden = k !== 'top';
  if (v.ui.treeSelect.value !== k) v.ui.treeSelect.value = k;
  if (!st.roots[k]) post({ type: 'needTree', tree: k });
  else {
    v.flames[k].resize();
    if (v.flames[k].zoomed) renderCrumbs(v.flames[k].zoomed!);
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
  st.frames.add(m.frames);
  const sub = buildNodes(m.data, st.strings, st.frames);
  mark('built');
  const remember = (n: FNode) => {
    if (n.frame === SMALL) thresholds.set(n, m.data.minWeight);
    n.children?.forEach(remember);
  };
  remember(sub);
  const k = m.tree;
  const flame = v.flames[k];
  if (m.expand && st.roots[k]) {
    const root = st.roots[k]!;
    const zoom = applyExpansion(root, m.expand, sub, flame.zoomed);
    if (!zoom) return;
    flame.setRoot(root, zoom);
    v.tables[k].refresh();
    return;
  }
  st.roots[k] = sub;
  const revealed = m.reveal !== undefined ? findNode(sub, (n) => n.host === m.reveal && n.frame !== SMALL) : undefined;
  if (revealed) {
    v.ui.tabs.selectedIndex = 0;
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
  v.tables[k].setRoot(sub);
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
  if (v.diff) {
    v.diff(m);
    return;
  }
  switch (m.type) {
    case 'init':
      if (m.kind === 'diff') {
        v.diff = openDiff(app, m, post, { orientation: st.persisted.orientation, save });
        break;
      }
      st.offline = !!m.offline;
      setHostMarks(m.hostMarks);
      st.strings = m.strings;
      st.info = m.info;
      st.options = { ...m.options };
      st.persisted = { ...st.persisted, ...m.state, path: m.info.path };
      if (m.state?.tree) st.kind = m.state.tree;
      save({ path: m.info.path, options: st.options });
      document.body.dataset.profile = m.info.label;
      // Set before the trees paint: the bar's own message comes after them (it waits for the run's time facts).
      if (m.live) document.body.dataset.live = 'true';
      pal.read();
      buildUi();
      renderLegend();
      renderSummary(v.ui.summary, st.info, st.strings, pal.colors, revealFrame);
      mark('uiBuilt');
      break;
    case 'tree':
      if (v.ui) onTree(m, received);
      break;
    case 'transforms': {
      st.info = m.info;
      // A live run's final profile comes this way too: its findings must select their frame as the first ones did.
      if (v.ui) renderSummary(v.ui.summary, st.info, st.strings, pal.colors, revealFrame);
      if (v.processes) v.processes.update(st.info);
      else if (v.ui) mountProcesses(v.ui.tabs);
      v.transforms?.onHost(m);
      mountRequests?.();
      v.requests?.refresh();
      // The call-tree transforms decide the Timeline's samples (the range only marks them): redraw when they change.
      const calls = JSON.stringify(m.transforms);
      if (calls !== st.timelineCalls) {
        st.timelineCalls = calls;
        v.timeline?.samplesChanged();
      } else v.timeline?.rangeChanged();
      break;
    }
    case 'findings':
      if (!st.info) break;
      st.info = { ...st.info, findings: m.findings };
      if (v.ui) renderSummary(v.ui.summary, st.info, st.strings, pal.colors, revealFrame);
      break;
    case 'timeline':
      v.timeline?.onHost(m);
      break;
    case 'requests':
      v.requests?.onHost(m);
      break;
    case 'sandwich':
      v.transforms?.onHost(m);
      break;
    case 'search':
      finder.onHost(m);
      break;
    case 'noSource':
      v.ui?.details.append(h('div', { class: 'no-source' }, m.reason));
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
      // Its trees came just before: once drawn, the e2e figure "app exit → painted" of a live run reads this.
      if (!m.live) afterPaint(() => metric('finalPaint', performance.now()));
      // The profile grew: the Timeline asks for its samples again.
      v.timeline?.samplesChanged();
      break;
  }
});
const onLive = liveBar(() => st.strings, post);

document.addEventListener('keydown', (e) => {
  if (!v.ui) return;
  routeKey(e, {
    tab: () => v.ui.tabs.selectedIndex,
    search: () => v.ui.search,
    filter: () => v.ui.filter,
    transforms: v.transforms,
    flame: () => v.flames[st.kind],
    timeline: v.timeline,
    help: () => showHelp(st.strings),
    accessibleView: () => post({ type: 'accessibleView', tree: st.kind }),
  });
});

pal.onThemeChange(() => {
  if (!v.ui) return;
  v.flames.top.redraw();
  v.flames.bottom.redraw();
  v.timeline?.draw();
  renderLegend();
});

post({ type: 'ready' });
mark('ready');
