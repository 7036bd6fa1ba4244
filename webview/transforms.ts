// The page's side of the call-tree transforms: the actions on a frame (context menu and keys, in the flame
// graphs and the tables), the stack shown as a breadcrumb of removable chips, and Exclude by regex. The host
// applies the stack; the page only asks for it and draws what comes back.
import type { FunctionKey, HostMessage, PersistedState, TimeRange, Transform, TreeKind, WebviewMessage } from '../src/core/viewer/protocol';
import { keyOf, packageOf } from '../src/core/viewer/protocol';
import { closeMenu, showMenu, type MenuItem } from './contextMenu';
import { clear, fmt, h } from './dom';
import { pathOf, SMALL, type FNode, type Strings } from './tree';
import './transforms.css';

/** What the transforms need from the page (main.ts). */
export interface TransformsHost {
  post(m: WebviewMessage): void;
  save(patch: Partial<PersistedState>): void;
  strings(): Strings;
  /** Called before a new stack is asked for: the page counts the generations the host will answer with. */
  newGeneration(): void;
  /** The frame selected where the keyboard is (flame graph or table), and which tree it is in. */
  selected(): { node: FNode; tree: TreeKind } | undefined;
  /** The sandwich view, opened on a function. */
  sandwich(fn: FunctionKey): void;
  /** Every sample again instead of the routes the Requests tab picked. */
  clearRoutes(): void;
}

const fnName = (k: FunctionKey) => k.name || '(anonymous)';

/** A time from the profile's start, short: `850 ms`, `12.40 s`; an open end is `…`. */
export function msText(ms: number): string {
  if (!(ms < 1e300)) return '…';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export class Transforms {
  stack: Transform[] = [];
  /** The time range the views show, as the host last applied it: a chip before the stack's. */
  range: TimeRange | undefined;
  /** The Requests tab's routes the views keep, as the host last applied them: a chip first, as the picker's choice is not a step. */
  routes: string[] = [];
  private readonly bars: HTMLElement[] = [];
  private error = '';

  constructor(private readonly host: TransformsHost) {}

  private get s(): Strings {
    return this.host.strings();
  }

  /** Asks the host for a new stack; chips follow its answer. */
  set(stack: Transform[]): void {
    closeMenu();
    this.host.newGeneration();
    this.host.save({ transforms: stack });
    this.host.post({ type: 'transforms', transforms: stack });
  }

  /** Asks the host for another time range (undefined: the whole span); the chip follows its answer. */
  setRange(range: TimeRange | undefined): void {
    closeMenu();
    this.host.newGeneration();
    this.host.save({ range });
    this.host.post({ type: 'range', range: range ?? null });
  }

  push(t: Transform): void {
    this.set([...this.stack, t]);
  }

  onHost(m: Extract<HostMessage, { type: 'transforms' }>): void {
    this.stack = m.transforms;
    this.range = m.range;
    this.routes = m.routes ?? [];
    this.host.save({ transforms: m.transforms, range: m.range });
    const s = this.s;
    // A reason without a string of its own (`adjacent`) shows the host's message, in the UI's language too.
    const reasons: Record<string, string> = { length: fmt(s.regexLength, 200), nested: s.regexNested, backreference: s.regexBackreference };
    this.error = m.error ? fmt(s.badRegex, reasons[m.error.reason] ?? m.error.detail) : '';
    this.render();
  }

  label(t: Transform): string {
    const s = this.s;
    switch (t.kind) {
      case 'focus-function':
        return fmt(s.xfChipFocus, fnName(t.fn));
      case 'focus-subtree':
        return fmt(t.inverted ? s.xfChipFocusCallers : s.xfChipFocusSubtree, t.path.map(fnName).join(t.inverted ? ' ← ' : ' → '));
      case 'merge-function':
        return fmt(s.xfChipMerge, fnName(t.fn));
      case 'merge-package':
        return fmt(s.xfChipMergePackage, t.package);
      case 'collapse-recursion':
        return fmt(s.xfChipCollapse, fnName(t.fn));
      case 'drop-function':
        return fmt(s.xfChipDrop, fnName(t.fn));
      case 'exclude':
        return fmt(s.xfChipExclude, t.regex);
    }
  }

  /** A bar for one tab: the breadcrumb of transforms and the Exclude field. */
  bar(): HTMLElement {
    const el = h('div', { class: 'transforms', attrs: { role: 'toolbar', 'aria-label': this.s.xfTransforms } });
    this.bars.push(el);
    this.renderBar(el);
    return el;
  }

  private render(): void {
    for (const el of this.bars) this.renderBar(el);
  }

  /** A crumb of the bar: the separator, the chip (a click goes back to it, when it can) and its × button. */
  private chip(label: string, kind: string, current: boolean, back: (() => void) | undefined, remove: () => void): HTMLElement[] {
    const s = this.s;
    const chip = h(
      'button',
      { class: 'crumb xf-chip', attrs: { type: 'button', 'data-kind': kind, ...(back ? { title: s.xfBackTo } : {}) } },
      label,
    );
    if (current) chip.setAttribute('aria-current', 'true');
    if (back) chip.addEventListener('click', back);
    const x = h('button', {
      class: 'xf-remove codicon codicon-close',
      attrs: { type: 'button', title: s.xfRemove, 'aria-label': fmt(s.xfRemoveOne, label) },
    });
    x.addEventListener('click', remove);
    return [h('span', { class: 'sep codicon codicon-chevron-right' }), h('span', { class: 'xf-item' }, chip, x)];
  }

  private renderBar(el: HTMLElement): void {
    const s = this.s;
    const keep = el.querySelector<HTMLInputElement>('input.exclude')?.value ?? '';
    clear(el);
    const crumbs = h('nav', { class: 'xf-crumbs', attrs: { 'aria-label': s.xfTransforms } });
    const root = h('button', { class: 'crumb xf-root', attrs: { type: 'button', title: s.xfClear } }, s.xfComplete);
    if (!this.stack.length && !this.range && !this.routes.length) root.setAttribute('aria-current', 'true');
    root.addEventListener('click', () => {
      if (this.routes.length) this.host.clearRoutes();
      if (this.range) this.setRange(undefined);
      if (this.stack.length) this.set([]);
    });
    crumbs.append(root);
    // Without it the bar said "Complete profile" over a flame graph of one route's requests.
    if (this.routes.length) {
      const label = fmt(s.xfChipRoutes, this.routes.join(', '));
      crumbs.append(...this.chip(label, 'routes', !this.range && !this.stack.length, undefined, () => this.host.clearRoutes()));
    }
    if (this.range) {
      // The range is not a step of the stack: its chip only goes away, with its ×.
      const label = fmt(s.xfChipRange, msText(this.range.from), msText(this.range.to));
      crumbs.append(...this.chip(label, 'range', !this.stack.length, undefined, () => this.setRange(undefined)));
    }
    this.stack.forEach((t, i) => {
      // The chip goes back to this step (later ones are dropped); its × removes only this one.
      const back = () => i < this.stack.length - 1 && this.set(this.stack.slice(0, i + 1));
      const remove = () => this.set(this.stack.filter((_, j) => j !== i));
      crumbs.append(...this.chip(this.label(t), t.kind, i === this.stack.length - 1, back, remove));
    });
    // A plain input: the page's text fields are web components, and this one has to keep its text across redraws.
    const input = h('input', {
      class: 'exclude',
      attrs: { type: 'text', placeholder: s.xfExcludePlaceholder, 'aria-label': s.xfExcludePlaceholder, spellcheck: 'false' },
    });
    input.value = keep;
    const go = () => {
      const v = input.value.trim();
      if (!v) return;
      input.value = '';
      this.push({ kind: 'exclude', regex: v });
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') go();
    });
    const button = h('button', { class: 'xf-exclude', attrs: { type: 'button' } }, s.xfExclude);
    button.addEventListener('click', go);
    el.append(crumbs, h('span', { class: 'grow' }), input, button);
    if (this.error) el.append(h('div', { class: 'xf-error', attrs: { role: 'alert' } }, this.error));
  }

  /** The actions on a frame of `tree` ('sandwich': one of the sandwich's halves, where call paths are not the tree's). */
  actions(n: FNode, tree: TreeKind | 'sandwich'): MenuItem[] {
    const f = n.info;
    if (!f) return [];
    const s = this.s;
    const fn = keyOf(f);
    const items: MenuItem[] = [{ label: s.xfFocusFunction, key: 'F', run: () => this.push({ kind: 'focus-function', fn }) }];
    if (tree !== 'sandwich') {
      const path = pathOf(n)
        .filter((x) => x.info && x.frame !== SMALL)
        .map((x) => keyOf(x.info!));
      items.push({
        label: tree === 'bottom' ? s.xfFocusCallers : s.xfFocusSubtree,
        key: '⇧F',
        run: () => this.push({ kind: 'focus-subtree', path, inverted: tree === 'bottom' || undefined }),
      });
    }
    items.push({ label: s.xfMergeFunction, key: 'M', run: () => this.push({ kind: 'merge-function', fn }) });
    const pkg = packageOf(f);
    if (pkg) items.push({ label: fmt(s.xfMergePackage, pkg), key: 'P', run: () => this.push({ kind: 'merge-package', package: pkg }) });
    items.push(
      { label: s.xfCollapseRecursion, key: 'R', run: () => this.push({ kind: 'collapse-recursion', fn }) },
      { label: s.xfDrop, key: 'D', run: () => this.push({ kind: 'drop-function', fn }) },
      { label: s.xfSandwich, key: 'S', run: () => this.host.sandwich(fn) },
    );
    return items;
  }

  /** The menu for a frame, at the mouse or (from the keyboard) at the element it is drawn in. */
  menu(n: FNode, tree: TreeKind | 'sandwich', x: number, y: number): void {
    showMenu(this.actions(n, tree), x, y, fmt(this.s.xfMenu, n.name));
  }

  /**
   * Keys on the selected frame: F focus on function, Shift+F focus on subtree, M merge, P merge package,
   * R collapse recursion, D drop, S sandwich; the context-menu key or Shift+F10 opens the menu. True when used.
   */
  key(e: KeyboardEvent, at?: { node: FNode; tree: TreeKind | 'sandwich'; el: Element }): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const sel = at ?? this.selectedHere();
    if (!sel) return false;
    if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
      const r = (sel.el ?? document.body).getBoundingClientRect();
      this.menu(sel.node, sel.tree, r.left + 8, r.top + 8);
      return true;
    }
    const keyName = e.key === 'F' ? '⇧F' : /^[fmprds]$/.test(e.key) ? e.key.toUpperCase() : undefined;
    if (!keyName) return false;
    const items = this.actions(sel.node, sel.tree);
    const item = items.find((i) => i.key === keyName);
    if (!item) return false;
    item.run();
    return true;
  }

  private selectedHere(): { node: FNode; tree: TreeKind; el: Element } | undefined {
    const sel = this.host.selected();
    if (!sel) return undefined;
    return { ...sel, el: document.activeElement ?? document.body };
  }
}

/** The drawn node under a mouse event in a d3-flame-graph chart (d3 keeps each element's datum on it). */
export function nodeAtEvent(e: Event): FNode | undefined {
  const g = (e.target as Element | null)?.closest?.('g.frame, g') as (Element & { __data__?: { data?: FNode } }) | null;
  return g?.__data__?.data;
}
