// Wires the transforms and the sandwich view into the viewer page, so main.ts only calls mountTransforms,
// hands over the host's 'transforms'/'sandwich' answers and lets `key` look at key presses first.
import type { FunctionKey, HostMessage, PersistedState, TimeRange, Transform, TreeKind, WebviewMessage } from '../src/core/viewer/protocol';
import type { FlameView } from './flame';
import { SandwichView } from './sandwich';
import type { TreeTable } from './tables';
import { nodeAtEvent, Transforms } from './transforms';
import type { FNode, FrameTable, Strings } from './tree';

export interface PageParts {
  post(m: WebviewMessage): void;
  save(patch: Partial<PersistedState>): void;
  strings(): Strings;
  frames: FrameTable;
  /** The page's generation count, bumped for every new stack (the host bumps its own). */
  newGeneration(): void;
  /** Every sample again instead of the Requests tab's routes. */
  clearRoutes(): void;
  state: PersistedState;
  charts: Record<TreeKind, HTMLElement>;
  flames: Record<TreeKind, FlameView>;
  tableBoxes: Record<TreeKind, HTMLElement>;
  tables: Record<TreeKind, TreeTable>;
  /** 0: flame graph tab, 1: tables tab. */
  tab(): number;
  /** The tree the flame graph tab shows. */
  kind(): TreeKind;
  color(n: FNode): string;
  matchColor(): string;
  tooltip(n: FNode | undefined, ev?: MouseEvent): void;
}

export interface TransformsUi {
  /** Handles the host's 'transforms' and 'sandwich' answers. */
  onHost(m: HostMessage): void;
  /** Looks at a key press before the page does; true when it used it. */
  key(e: KeyboardEvent): boolean;
  /** The stack as the host last applied it, and asking for another. */
  stack(): Transform[];
  set(stack: Transform[]): void;
  /** The time range as the host last applied it, and asking for another (undefined: the whole span). */
  range(): TimeRange | undefined;
  setRange(range: TimeRange | undefined): void;
}

export function mountTransforms(app: HTMLElement, p: PageParts): TransformsUi {
  const sandwich: SandwichView = new SandwichView({
    post: p.post,
    strings: p.strings,
    frames: p.frames,
    color: p.color,
    matchColor: p.matchColor,
    tooltip: p.tooltip,
    onSelect: (n, how, focus) => {
      if (how === 'click' && n.frame >= 0) p.post({ type: 'open', frame: n.frame, focus });
    },
    onClose: () => {
      p.save({ sandwich: undefined });
      p.charts[p.kind()].focus();
    },
  });
  const openSandwich = (fn: FunctionKey) => {
    p.save({ sandwich: fn });
    sandwich.open(fn);
    requestAnimationFrame(() => (app.querySelector('[data-sandwich="callees"]') as HTMLElement | null)?.focus());
  };
  const tableKind = (): TreeKind => (p.tableBoxes.bottom.hidden ? 'top' : 'bottom');
  const xf = new Transforms({
    post: p.post,
    save: p.save,
    strings: p.strings,
    newGeneration: p.newGeneration,
    clearRoutes: p.clearRoutes,
    sandwich: openSandwich,
    selected: () => {
      if (p.tab() === 0) {
        const node = p.flames[p.kind()].selected;
        return node && { node, tree: p.kind() };
      }
      if (p.tab() === 1) {
        const node = p.tables[tableKind()].selection;
        return node && { node, tree: tableKind() };
      }
      return undefined;
    },
  });
  app.append(sandwich.el);

  // One bar under each tab's toolbar: the stack applies to both.
  for (const tab of ['.flame-tab', '.tables-tab', '.timeline-tab']) app.querySelector(`${tab} > .toolbar`)?.after(xf.bar());

  for (const k of ['top', 'bottom'] as const) {
    p.charts[k].addEventListener('contextmenu', (e) => {
      const n = nodeAtEvent(e);
      if (!n) return;
      e.preventDefault();
      p.flames[k].select(n, 'key');
      xf.menu(n, k, e.clientX, e.clientY);
    });
    p.tableBoxes[k].addEventListener('contextmenu', (e) => {
      const row = (e.target as Element).closest('.row[data-index]');
      const n = row && p.tables[k].nodeOfRow(row);
      if (!n) return;
      e.preventDefault();
      xf.menu(n, k, e.clientX, e.clientY);
    });
  }
  sandwich.el.addEventListener('contextmenu', (e) => {
    const n = nodeAtEvent(e);
    if (!n || !sandwich.flameOf(e.target as Element)) return;
    e.preventDefault();
    sandwich.flameOf(e.target as Element)!.select(n, 'key');
    xf.menu(n, 'sandwich', e.clientX, e.clientY);
  });

  if (p.state.sandwich) openSandwich(p.state.sandwich);

  return {
    onHost(m) {
      if (m.type === 'sandwich') sandwich.onHost(m);
      if (m.type !== 'transforms') return;
      xf.onHost(m);
      // The selected frame belonged to the old tree: its details would show the old figures.
      for (const k of ['top', 'bottom'] as const) p.flames[k].select(undefined);
      const details = app.querySelector('.flame-tab .details');
      if (details) details.textContent = p.strings().hint;
      // The sandwich shows the new tree too.
      if (sandwich.isOpen && sandwich.fn) sandwich.open(sandwich.fn);
    },
    key(e) {
      if (sandwich.isOpen) {
        const sel = sandwich.selected();
        if (sel && xf.key(e, { node: sel.node, tree: 'sandwich', el: sel.el })) return true;
        const flame = sandwich.flameOf(document.activeElement ?? document.body);
        if (flame?.key(e)) return true;
        // Nothing behind the sandwich reacts while it is open, except Escape (which closes it).
        return e.key !== 'Escape';
      }
      return xf.key(e);
    },
    stack: () => xf.stack,
    set: (stack) => xf.set(stack),
    range: () => xf.range,
    setRange: (range) => xf.setRange(range),
  };
}
