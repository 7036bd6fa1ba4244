// The comparison mode of the viewer: a differential flame graph and the table of biggest changes.
import {
  type DiffChangeInfo,
  type DiffMessage,
  type HostMessage,
  type Orientation,
  type PersistedState,
  type SizeBy,
} from '../src/core/viewer/protocol';
import { diffPalette } from './diffColor';
import { changesTable, loc, share, signed } from './diffChanges';
import { FlameView } from './flame';
import { clear, fmt, h } from './dom';
import { fillCard, fullName, placeTooltip, type Row } from './details';
import { diffLayout } from './diffLayout';
import { renderCrumbs as renderCrumbsBar } from './legend';
import { applyExpansion, buildNodes, FrameTable, SMALL, type FNode, type Strings } from './tree';
import { showHelp } from './helpOverlay';

type Init = Extract<HostMessage, { type: 'init'; kind: 'diff' }>;
type Figures = { before: number; after: number };

/** The orientation the panel remembers, and how to remember a new one. */
export interface DiffViewState {
  orientation: Orientation;
  remember(o: Orientation): void;
}

/**
 * The page's opening as a comparison: remembers its two files (and ranges) for a reload, builds its UI and returns
 * the handler for the host's later messages.
 */
export function openDiff(
  app: HTMLElement,
  init: Init,
  post: (m: DiffMessage) => void,
  state: { orientation?: Orientation; save(patch: Partial<PersistedState>): void },
): (m: HostMessage) => void {
  const diff = { before: init.before.path, after: init.after.path, beforeRange: init.before.range, afterRange: init.after.range };
  state.save({ path: '', diff });
  return startDiff(app, init, post, { orientation: state.orientation ?? 'flame', remember: (orientation) => state.save({ orientation }) });
}

/** Builds the comparison UI into `app` and returns the handler for the host's later messages. */
export function startDiff(app: HTMLElement, init: Init, post: (m: DiffMessage) => void, view: DiffViewState): (m: HostMessage) => void {
  const s: Strings = init.strings;
  const figures = new WeakMap<FNode, Figures>();
  const thresholds = new WeakMap<FNode, number>();
  const frames = new FrameTable();
  let sizeBy: SizeBy = 'after';
  let root: FNode | undefined;
  let firstPaint = false;
  document.body.dataset.mode = 'diff';
  document.body.dataset.profile = `${init.before.label} → ${init.after.label}`;

  const palette = diffPalette();
  const deltaColor = palette.deltaColor;
  const colorOf = (n: FNode) => {
    if (n.frame === SMALL) return palette.small();
    const f = figures.get(n);
    return f ? deltaColor(f.after - f.before) : palette.small();
  };

  // ---- layout (diffLayout.ts) ----
  clear(app);
  // The page's hover card (made before the host said which mode this is), or a new one.
  let tooltipEl = document.querySelector<HTMLElement>('body > .tooltip');
  if (!tooltipEl) document.body.append((tooltipEl = h('div', { class: 'tooltip', attrs: { role: 'tooltip' } })));
  const { el, errorEl, search, matched, crumbs, chart, charts, details, changes, renderLegend } = diffLayout(
    s,
    init,
    view.orientation,
    deltaColor,
    {
      sizeBy: (by) => {
        sizeBy = by;
        post({ type: 'sizeBy', sizeBy });
      },
      orientation: (o) => {
        view.remember(o);
        flame.setRootAtTop(o === 'icicle');
      },
      resetZoom: () => flame.resetZoom(),
      export: () => post({ type: 'export' }),
    },
  );
  app.append(el);

  // ---- details and tooltip: before %, after %, change ----
  const fill = (el: HTMLElement, name: string, file: string, line: number, f: Figures, color: string) => {
    const rows: Row[] = [
      [s.file, file ? loc(file, line) : s.noFile],
      [s.before, share(f.before)],
      [s.after, share(f.after)],
      [s.delta, signed(f.after - f.before), 'delta'],
    ];
    fillCard(el, name, rows, color);
  };
  const describe = (el: HTMLElement, n: FNode) => {
    const f = n.info;
    fill(el, fullName(n), f?.file ?? '', f?.line ?? 0, figures.get(n) ?? { before: 0, after: 0 }, colorOf(n));
  };
  const tooltip = (n: FNode | undefined, ev?: MouseEvent) => {
    if (!tooltipEl) return;
    if (!n || !ev) {
      tooltipEl.classList.remove('visible');
      return;
    }
    describe(tooltipEl, n);
    placeTooltip(tooltipEl, ev);
  };

  const requestExpand = (n: FNode) =>
    post({ type: 'diffExpand', sizeBy, node: n.host, small: n.frame === SMALL, minWeight: thresholds.get(n) ?? 0 });
  const renderCrumbs = (n: FNode) => renderCrumbsBar(crumbs, n, (x) => flame.zoomTo(x));
  const flame = new FlameView(chart, view.orientation === 'icicle', {
    color: colorOf,
    matchColor: palette.match,
    onSelect: (n, how, focus) => {
      describe(details, n);
      if (how === 'click' && n.frame >= 0) post({ type: 'open', frame: n.frame, focus });
    },
    onZoom: renderCrumbs,
    requestExpand,
    tooltip,
    metric: (name, ms) => {
      document.body.dataset[`${name}Ms`] = ms.toFixed(1);
      post({ type: 'metric', name, ms });
    },
    // The graph's box is as tall as what is drawn (up to what the table leaves): no empty band under it.
    drawn: (height) => (charts.style.flexBasis = `${height}px`),
  });
  new ResizeObserver(() => flame.resize()).observe(charts);

  // ---- search: the host gives the share over the whole tree ----
  let timer: ReturnType<typeof setTimeout> | undefined;
  const runSearch = () => {
    const term = search.value;
    if (!term) {
      flame.search(undefined);
      matched.textContent = '';
      return;
    }
    const lower = term.toLowerCase();
    flame.search((n) => (n.info?.name ?? n.name).toLowerCase().includes(lower));
    post({ type: 'search', tree: 'top', term, regex: false });
  };
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(runSearch, 120);
  });

  // ---- the biggest changes ----
  let chosen: HTMLTableRowElement | undefined;
  const chooseChange = (c: DiffChangeInfo, row: HTMLTableRowElement, focus: boolean) => {
    chosen?.classList.remove('selected');
    chosen = row;
    row.classList.add('selected');
    fill(details, c.name, c.file, c.line, c, deltaColor(c.delta));
    // Highlight where the function is in the graph; the search box says it is a highlight.
    search.value = c.name;
    flame.search((n) => n.frame === c.frame || (n.info?.name === c.name && (n.info?.file ?? '') === c.file));
    matched.textContent = '';
    if (c.frame >= 0) post({ type: 'open', frame: c.frame, focus });
  };
  changes.append(changesTable(init, s, deltaColor, chooseChange));

  const onTree = (m: Extract<HostMessage, { type: 'diffTree' }>, received: number) => {
    if (m.sizeBy !== sizeBy) return;
    frames.add(m.frames);
    const sub = buildNodes(m.data, s, frames, 0, undefined, (n, i) => {
      figures.set(n, { before: m.before[i], after: m.after[i] });
      if (n.frame === SMALL) thresholds.set(n, m.data.minWeight);
    });
    if (m.expand && root) {
      const zoom = applyExpansion(root, m.expand, sub, flame.zoomed);
      if (zoom) flame.setRoot(root, zoom);
      return;
    }
    root = sub;
    flame.setRoot(sub);
    if (search.value) runSearch();
    if (!firstPaint) {
      firstPaint = true;
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          document.body.dataset.nodes = String(m.data.node.length);
          document.body.dataset.renderMs = (performance.now() - received).toFixed(1);
          document.body.dataset.firstPaintMs = performance.now().toFixed(1);
        }),
      );
    }
  };

  document.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    if (e.altKey && e.key === 'F2') {
      e.preventDefault();
      post({ type: 'accessibleView' });
      return;
    }
    if (/^(INPUT|TEXTAREA|VSCODE-TEXTFIELD|VSCODE-SINGLE-SELECT|TR)$/.test(t.tagName)) {
      if (e.key === 'Escape') t.blur();
      return;
    }
    if (e.key === '/') {
      e.preventDefault();
      search.focus();
    } else if (e.key === '?') showHelp(s);
    else if (flame.key(e)) e.preventDefault();
  });
  // Theme switches change the colours: re-read them and repaint.
  new MutationObserver(() => {
    palette.read();
    flame.redraw();
    renderLegend();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });

  return (m) => {
    const received = performance.now();
    switch (m.type) {
      case 'diffTree':
        onTree(m, received);
        break;
      case 'search':
        if (m.term !== search.value) break;
        matched.textContent = m.error ? fmt(s.badRegex, m.error) : fmt(s.matched, (100 * m.fraction).toFixed(m.fraction >= 0.1 ? 1 : 2));
        break;
      case 'noSource':
        details.append(h('div', { class: 'no-source' }, m.reason));
        break;
      case 'error':
        errorEl.textContent = m.message;
        break;
      default:
        break;
    }
  };
}
