// The sandwich view: one function in the middle, its callers above (a flame graph of the bottom-up tree,
// growing upward from the function) and its callees below (an icicle from the function), each with its own zoom.
import type { FunctionKey, HostMessage, SandwichSide, WebviewMessage } from '../src/core/viewer/protocol';
import { fmt, h } from './dom';
import { FlameView, type FlameHost } from './flame';
import { buildNodes, findNode, graft, SMALL, type FNode, type FrameTable, type Strings } from './tree';

export interface SandwichHost {
  post(m: WebviewMessage): void;
  strings(): Strings;
  /** The page's frames: the sandwich's trees add theirs. */
  frames: FrameTable;
  color(n: FNode): string;
  matchColor(): string;
  tooltip(n: FNode | undefined, ev?: MouseEvent): void;
  /** A frame was clicked (to open its source) or chosen with the keyboard. */
  onSelect(n: FNode, how: 'click' | 'key' | 'reveal', focus: boolean): void;
  onClose(): void;
}

/** The function's own entry as the root of a half: the tree's root stands for all samples, which here are all the function's. */
function fromFunction(root: FNode): FNode {
  const kids = root.children ?? [];
  if (kids.length !== 1) return root;
  const only = kids[0];
  only.up = undefined;
  return only;
}

export class SandwichView {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly charts: Record<SandwichSide, HTMLElement>;
  private readonly flames: Record<SandwichSide, FlameView>;
  private readonly roots: Partial<Record<SandwichSide, FNode>> = {};
  private readonly thresholds = new WeakMap<FNode, number>();
  private generation = -1;
  fn: FunctionKey | undefined;

  constructor(private readonly host: SandwichHost) {
    const s = host.strings();
    this.title = h('span', { class: 'sw-title' });
    const close = h('button', {
      class: 'sw-close codicon codicon-close',
      attrs: { type: 'button', title: s.close, 'aria-label': s.close },
    });
    close.addEventListener('click', () => this.close());
    const chart = (side: SandwichSide) =>
      h('div', {
        class: 'chart',
        attrs: { tabindex: '0', 'data-sandwich': side, role: 'application', 'aria-label': side === 'callers' ? s.swCallers : s.swCallees },
      });
    this.charts = { callers: chart('callers'), callees: chart('callees') };
    this.el = h(
      'section',
      { class: 'sandwich', attrs: { 'aria-label': s.xfSandwich } },
      h('div', { class: 'sw-head' }, this.title, h('span', { class: 'grow' }), h('span', { class: 'dim' }, s.swHint), close),
      h('div', { class: 'sw-label dim' }, s.swCallers),
      h('div', { class: 'charts sw-half' }, this.charts.callers),
      h('div', { class: 'sw-label dim' }, s.swCallees),
      h('div', { class: 'charts sw-half' }, this.charts.callees),
    );
    this.el.hidden = true;
    const flameHost = (side: SandwichSide): FlameHost => ({
      color: (n) => host.color(n),
      matchColor: () => host.matchColor(),
      onSelect: (n, how, focus) => host.onSelect(n, how, focus),
      onZoom: () => undefined,
      requestExpand: (n) => this.expand(side, n),
      tooltip: (n, ev) => host.tooltip(n, ev),
      metric: () => undefined,
    });
    // Callers grow upward from the function (a flame graph); callees hang below it (an icicle).
    this.flames = {
      callers: new FlameView(this.charts.callers, false, flameHost('callers')),
      callees: new FlameView(this.charts.callees, true, flameHost('callees')),
    };
    this.el.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.zoomedIn()) {
        this.close();
        e.preventDefault();
      }
    });
    new ResizeObserver(() => {
      this.flames.callers.resize();
      this.flames.callees.resize();
    }).observe(this.el);
  }

  private zoomedIn(): boolean {
    return (['callers', 'callees'] as const).some((k) => this.flames[k].zoomed && this.flames[k].zoomed !== this.roots[k]);
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  open(fn: FunctionKey): void {
    this.fn = fn;
    this.title.textContent = fmt(this.host.strings().swTitle, fn.name || '(anonymous)');
    this.el.hidden = false;
    this.host.post({ type: 'sandwich', fn });
  }

  close(): void {
    this.el.hidden = true;
    this.fn = undefined;
    this.host.onClose();
  }

  /** The half and the drawn frame the keyboard is on, for the transform keys. */
  selected(): { node: FNode; side: SandwichSide; el: Element } | undefined {
    for (const side of ['callers', 'callees'] as const) {
      const n = this.flames[side].selected;
      if (n && this.charts[side].contains(document.activeElement)) return { node: n, side, el: this.charts[side] };
    }
    return undefined;
  }

  /** The FlameView of a chart element, for the key handler. */
  flameOf(el: Element): FlameView | undefined {
    if (this.charts.callers.contains(el)) return this.flames.callers;
    if (this.charts.callees.contains(el)) return this.flames.callees;
    return undefined;
  }

  private expand(side: SandwichSide, n: FNode): void {
    this.host.post({
      type: 'sandwichExpand',
      generation: this.generation,
      side,
      node: n.host,
      small: n.frame === SMALL,
      minWeight: this.thresholds.get(n) ?? 0,
    });
  }

  onHost(m: Extract<HostMessage, { type: 'sandwich' }>): void {
    if (!this.fn || m.fn.name !== this.fn.name || m.fn.file !== this.fn.file || m.fn.line !== this.fn.line) return;
    this.host.frames.add(m.frames);
    const s = this.host.strings();
    const build = (data: NonNullable<typeof m.callers>) => {
      const sub = buildNodes(data, s, this.host.frames);
      const remember = (n: FNode) => {
        if (n.frame === SMALL) this.thresholds.set(n, data.minWeight);
        n.children?.forEach(remember);
      };
      remember(sub);
      return sub;
    };
    if (m.expand) {
      if (m.generation !== this.generation) return;
      const root = this.roots[m.expand.side];
      const target =
        root && findNode(root, (n) => n.host === m.expand!.node && (m.expand!.small ? n.frame === SMALL : n.frame !== SMALL) && n.pruned);
      if (!root || !target) return;
      graft(target, build(m.expand.data));
      this.flames[m.expand.side].setRoot(root, this.flames[m.expand.side].zoomed ?? target);
      return;
    }
    this.generation = m.generation;
    for (const side of ['callers', 'callees'] as const) {
      const data = m[side];
      if (!data) continue;
      const root = fromFunction(build(data));
      this.roots[side] = root;
      this.flames[side].setRoot(root);
    }
    this.el.dataset.callers = String(this.roots.callers?.children?.length ?? 0);
  }
}
