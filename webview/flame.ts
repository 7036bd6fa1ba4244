import flamegraph, { type FlameGraph, type HNode } from 'd3-flame-graph';
import { select } from 'd3-selection';
import { SMALL, type FNode } from './tree';
import { hotTarget, scrollToFrame, scrollToShow } from './hotPath';

export interface FlameHost {
  color(n: FNode): string;
  matchColor(): string;
  /** A frame was chosen: by a click (`focus` with Ctrl/Cmd), a key, or a reveal from the editor. */
  onSelect(n: FNode, how: 'click' | 'key' | 'reveal', focus: boolean): void;
  onZoom(n: FNode): void;
  requestExpand(n: FNode): void;
  tooltip(n: FNode | undefined, ev?: MouseEvent): void;
  metric(name: string, ms: number): void;
  /** The drawing's height changed (it follows the depth drawn): a box sized to its content can follow it. */
  drawn?(height: number): void;
}

const CELL = 18;

/**
 * One d3-flame-graph chart: a flame graph (root at the bottom) or an icicle (root at the top). After it
 * opens and after each zoom it scrolls so the heaviest path's leaf shows, keeping as much of the path
 * below (flame) or above (icicle) it as the box holds: the hot code is on screen without scrolling.
 */
export class FlameView {
  private readonly chart: FlameGraph<FNode>;
  private root: FNode | undefined;
  private drawn = false;
  selected: FNode | undefined;
  zoomed: FNode | undefined;
  private programmatic = false;
  private clickStart = 0;
  private clickFocus = false;
  private matcher: ((n: FNode) => boolean) | undefined;
  /** The view still shows what the last automatic scroll chose (the user has not scrolled since). */
  private autoScrolled = false;
  /** A scroll wanted while the box had no height (hidden tab or tree): done at the next resize. */
  private scrollPending = false;
  private lastScrollTop = -1;

  constructor(
    readonly el: HTMLElement,
    private inverted: boolean,
    private readonly host: FlameHost,
    /**
     * What the view scrolls to: the heaviest path's leaf (a call tree), or the zoomed frame itself (a
     * bottom-up tree, whose leaves are outermost callers and whose hot functions are the first row).
     */
    private readonly follow: 'hot-leaf' | 'zoomed' = 'hot-leaf',
  ) {
    const tip = Object.assign(() => undefined, {
      show: (ev: MouseEvent, d: HNode<FNode>) => host.tooltip(d.data, ev),
      hide: () => host.tooltip(undefined),
    });
    this.chart = flamegraph<FNode>()
      .cellHeight(CELL)
      .transitionDuration(0)
      .inverted(inverted)
      .sort(false)
      .minFrameSize(1)
      .tooltip(tip)
      .setColorMapper((d) => (d.highlight ? host.matchColor() : host.color(d.data)))
      .setSearchMatch((d) => !!this.matcher && d.data.frame !== SMALL && this.matcher(d.data))
      // The share matched comes from the host, over the whole (unpruned) tree.
      .setSearchHandler(() => undefined)
      .setDetailsHandler(() => undefined)
      .onClick((d) => this.onZoom(d));
    (this.chart as unknown as { resetHeightOnZoom(b: boolean): unknown }).resetHeightOnZoom(true);
    // d3-flame-graph's click handler gets no event: read the modifiers before it runs.
    el.addEventListener(
      'click',
      (e) => {
        this.clickStart = performance.now();
        this.clickFocus = e.ctrlKey || e.metaKey;
      },
      true,
    );
    el.addEventListener('scroll', () => {
      if (el.scrollTop !== this.lastScrollTop) this.autoScrolled = false;
    });
  }

  /** Root at the top (icicle) or at the bottom (flame). */
  setRootAtTop(top: boolean): void {
    if (top === this.inverted) return;
    this.inverted = top;
    this.chart.inverted(top);
    if (!this.drawn) return;
    this.chart.update();
    this.afterDraw();
    this.showHotPath();
  }

  /** The SVG is as tall as the depth drawn (frames under a pixel wide are not drawn and do not count). */
  private fit(): void {
    this.chart.width(Math.max(200, this.el.clientWidth)).minHeight(0);
  }

  private height(): number {
    return Number(this.el.querySelector('svg')?.getAttribute('height')) || 0;
  }

  /** After every redraw: the selection mark, the orientation class, and the new height to the host. */
  private afterDraw(): void {
    this.markSelected();
    this.el.classList.toggle('root-bottom', !this.inverted);
    this.host.drawn?.(this.height());
  }

  /**
   * Scrolls so the hot frame under the zoomed frame (hotTarget) is in view, with the zoomed frame too when both fit
   * (or, following the zoomed frame, that frame with what it calls).
   */
  showHotPath(): void {
    const top = this.zoomed ?? this.root;
    const box = this.el.clientHeight;
    if (!top || !this.drawn) return;
    if (box === 0) {
      this.scrollPending = true;
      return;
    }
    this.scrollPending = false;
    const target = this.hnode(this.follow === 'hot-leaf' ? hotTarget(top) : top);
    if (!target) return;
    const drawing = { rootAtTop: this.inverted, cell: CELL, height: this.height(), box };
    this.el.scrollTop = this.follow === 'hot-leaf' ? scrollToShow(target.depth, drawing) : scrollToFrame(target.depth, drawing);
    this.lastScrollTop = this.el.scrollTop;
    this.box = box;
    this.autoScrolled = true;
  }

  get data(): FNode | undefined {
    return this.root;
  }

  /** Draws a (new) tree; keeps the zoom when `zoomTo` is given. */
  setRoot(root: FNode, zoomTo?: FNode): void {
    this.root = root;
    this.fit();
    if (!this.drawn) {
      select(this.el).datum(root).call(this.chart);
      this.drawn = true;
    } else this.chart.update(root);
    if (this.matcher) this.chart.search('x');
    if (zoomTo) this.zoomTo(zoomTo);
    else {
      this.zoomed = root;
      this.host.onZoom(root);
    }
    this.afterDraw();
    if (!zoomTo) this.showHotPath();
  }

  private hnode(n: FNode): HNode<FNode> | undefined {
    const r = select(this.el).datum() as HNode<FNode> | undefined;
    if (!r || typeof r.descendants !== 'function') return undefined;
    return r.descendants().find((d) => d.data === n);
  }

  zoomTo(n: FNode): void {
    const d = this.hnode(n);
    if (!d) return;
    this.programmatic = true;
    try {
      this.chart.zoomTo(d);
    } finally {
      this.programmatic = false;
    }
    this.afterDraw();
    this.showHotPath();
  }

  resetZoom(): void {
    if (this.root) this.zoomTo(this.root);
  }

  private onZoom(d: HNode<FNode>): void {
    this.zoomed = d.data;
    this.host.tooltip(undefined);
    this.host.onZoom(d.data);
    if (this.programmatic) return;
    this.afterDraw();
    this.showHotPath();
    const t0 = this.clickStart;
    this.select(d.data, 'click', this.clickFocus);
    if (d.data.pruned) this.host.requestExpand(d.data);
    requestAnimationFrame(() => requestAnimationFrame(() => this.host.metric('zoom', performance.now() - t0)));
  }

  select(n: FNode | undefined, how: 'click' | 'key' | 'reveal' = 'key', focus = false): void {
    this.selected = n;
    this.markSelected();
    if (n) this.host.onSelect(n, how, focus);
  }

  markSelected(): void {
    const sel = this.selected;
    select(this.el)
      .selectAll('g.frame')
      .classed('selected', (d: HNode<FNode>) => d.data === sel);
  }

  search(matcher: ((n: FNode) => boolean) | undefined): void {
    this.matcher = matcher;
    if (!this.drawn) return;
    // The term itself is unused: the matcher closes over it.
    if (matcher) this.chart.search('x');
    else this.chart.clear();
    this.markSelected();
  }

  private size = '';
  /** The box's height when last drawn or scrolled to (see resize). */
  private box = 0;

  resize(): void {
    if (!this.drawn || !this.root || this.el.clientWidth === 0) return;
    // A full redraw only when the box really changed size.
    const size = `${this.el.clientWidth}x${this.el.clientHeight}`;
    if (size === this.size) return;
    this.size = size;
    // A flame graph hangs from its bottom edge: the view's bottom stays at the same distance from it. The box has
    // already its new height here, so the distance is taken with the height it had when last drawn; taken from the
    // view's top instead, a panel shrunk by 108 px hid the hottest leaf 108 px under the chart.
    const belowView = this.el.scrollHeight - this.el.scrollTop - (this.box || this.el.clientHeight);
    this.box = this.el.clientHeight;
    this.fit();
    this.chart.update();
    this.afterDraw();
    if (this.autoScrolled || this.scrollPending) this.showHotPath();
    else if (!this.inverted) this.el.scrollTop = this.el.scrollHeight - this.el.clientHeight - belowView;
  }

  redraw(): void {
    if (this.drawn) {
      this.chart.update();
      this.afterDraw();
    }
  }

  /** Arrows move the selection (up/down follow the picture), Enter and Space zoom to it, Esc resets. */
  key(e: KeyboardEvent): boolean {
    const n = this.selected ?? this.zoomed ?? this.root;
    if (!n) return false;
    const heaviest = (x: FNode) => x.children?.reduce((a, b) => (b.value > a.value ? b : a));
    const sibling = (x: FNode, dir: number) => {
      const sibs = x.up?.children;
      if (!sibs) return undefined;
      return sibs[sibs.indexOf(x) + dir];
    };
    let next: FNode | undefined;
    switch (e.key) {
      case 'ArrowUp':
        next = this.inverted ? n.up : heaviest(n);
        break;
      case 'ArrowDown':
        next = this.inverted ? heaviest(n) : n.up;
        break;
      case 'ArrowLeft':
        next = sibling(n, -1);
        break;
      case 'ArrowRight':
        next = sibling(n, 1);
        break;
      case 'Enter':
      case ' ':
        this.zoomTo(n);
        this.select(n, 'click', e.key === 'Enter');
        if (n.pruned) this.host.requestExpand(n);
        return true;
      case 'Escape':
        this.resetZoom();
        return true;
      default:
        return false;
    }
    if (next) this.select(next, 'key');
    return true;
  }
}
