import type { WeightUnit } from '../src/core/viewer/protocol';
import { weightNumber } from './units';
import { clear, h, pct } from './dom';
import { SMALL, type FNode, type Strings } from './tree';
import { shortPaths } from './shortPaths';

const ROW = 22;
/** Each table's element ids (its head row, its rows) start with its own prefix. */
let tables = 0;

export interface TableHost {
  total(): number;
  unit(): WeightUnit | undefined;
  color(n: FNode): string;
  requestExpand(n: FNode): void;
  onSelect(n: FNode, focus: boolean): void;
}

interface Row {
  node: FNode;
  level: number;
}

/** Pixels of indent a level. */
const INDENT = 14;
/** The width a row's name keeps however deep it is. */
const NAME_ROOM = 140;

/** A tree table that only builds the rows in view, so tens of thousands of nodes scroll smoothly. */
export class TreeTable {
  private root: FNode | undefined;
  private rows: Row[] = [];
  private readonly expanded = new Set<FNode>();
  private sortBy: 'total' | 'self' = 'total';
  private filter = '';
  private selected: FNode | undefined;
  private shortFiles = new Map<string, string>();
  private readonly nameHead: HTMLElement;
  private readonly viewport: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly headers: Record<'self' | 'total', HTMLElement>;
  private readonly id = `tt${++tables}`;

  constructor(
    readonly el: HTMLElement,
    private readonly s: Strings,
    private readonly host: TableHost,
  ) {
    const sortable = (key: 'self' | 'total', label: string) => {
      const cell = h('div', { class: 'cell num sortable', attrs: { role: 'columnheader', tabindex: '0' } }, label);
      const go = () => {
        this.sortBy = key;
        this.refresh();
      };
      cell.addEventListener('click', go);
      cell.addEventListener('keydown', (e) => e.key === 'Enter' && go());
      return cell;
    };
    this.headers = { self: sortable('self', s.self), total: sortable('total', s.total) };
    const head = h(
      'div',
      { class: 'row head', attrs: { role: 'row', id: `${this.id}-head`, 'aria-rowindex': '1' } },
      this.headers.self,
      this.headers.total,
      (this.nameHead = h('div', { class: 'cell name', attrs: { role: 'columnheader' } }, s.function)),
      h('div', { class: 'cell loc', attrs: { role: 'columnheader' } }, s.location),
    );
    this.spacer = h('div', { class: 'spacer' });
    this.body = h('div', { class: 'rows' });
    // The head row is drawn outside the scrolled rows: the grid owns it all the same.
    const grid = { role: 'treegrid', tabindex: '0', 'aria-owns': `${this.id}-head`, 'aria-label': s.tabTables };
    this.viewport = h('div', { class: 'viewport', attrs: grid }, this.spacer, this.body);
    el.append(head, this.viewport);
    this.viewport.addEventListener('scroll', () => this.paint());
    this.viewport.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.paint()).observe(this.viewport);
  }

  /** The row the keyboard or the last click chose. */
  get selection(): FNode | undefined {
    return this.selected;
  }

  /** The node of a drawn row element (for a context menu), choosing it. */
  nodeOfRow(row: Element): FNode | undefined {
    const r = this.rows[Number((row as HTMLElement).dataset.index)];
    if (r && r.node !== this.selected) {
      this.selected = r.node;
      this.paint();
    }
    return r?.node;
  }

  setRoot(root: FNode): void {
    this.root = root;
    this.expanded.clear();
    // Open the heaviest path a few levels, as the flame graph's widest tower.
    let n: FNode | undefined = root;
    for (let i = 0; i < 6 && n; i++) {
      this.expanded.add(n);
      n = n.children?.reduce((a, b) => (b.value > a.value ? b : a));
    }
    this.refresh();
  }

  setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.refresh();
  }

  /** Rebuilds the flat row list (after sort, filter, expand or new data). */
  refresh(): void {
    this.headers.self.classList.toggle('sorted', this.sortBy === 'self');
    this.headers.total.classList.toggle('sorted', this.sortBy === 'total');
    for (const k of ['self', 'total'] as const) this.headers[k].setAttribute('aria-sort', this.sortBy === k ? 'descending' : 'none');
    this.rows = [];
    if (!this.root) return this.paint();
    const key = this.sortBy === 'self' ? (n: FNode) => n.self : (n: FNode) => n.value;
    const f = this.filter;
    const keep = f ? new Set<FNode>() : undefined;
    if (keep) {
      const test = (n: FNode) => n.frame !== SMALL && (n.name.toLowerCase().includes(f) || (n.info?.file ?? '').toLowerCase().includes(f));
      const mark = (n: FNode): boolean => {
        let any = test(n);
        for (const c of n.children ?? []) if (mark(c)) any = true;
        if (any) keep.add(n);
        return any;
      };
      mark(this.root);
    }
    const walk = (n: FNode, level: number) => {
      const kids = [...(n.children ?? [])].filter((c) => !keep || keep.has(c)).sort((a, b) => key(b) - key(a));
      for (const c of kids) {
        this.rows.push({ node: c, level });
        if (this.expanded.has(c) || (keep && c.children?.some((x) => keep.has(x)))) walk(c, level + 1);
      }
    };
    walk(this.root, 0);
    this.shortFiles = shortPaths(filesUnder(this.root));
    this.spacer.style.height = `${this.rows.length * ROW}px`;
    this.paint();
  }

  private paint(): void {
    clear(this.body);
    // Only the rows in view are built: the grid says how many there are, each row where it is.
    this.viewport.removeAttribute('aria-activedescendant');
    this.viewport.setAttribute('aria-rowcount', String(this.rows.length + 1));
    const top = this.viewport.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW) - 5);
    const last = Math.min(this.rows.length, Math.ceil((top + this.viewport.clientHeight) / ROW) + 5);
    const total = this.host.total();
    // Express's middleware chain is 30 levels deep: indented without end, a deep row's name was pushed out of its cell.
    // Past the cap a row keeps the last indent (its level is still told to screen readers), so its name stays readable.
    const maxIndent = Math.max(4, this.nameHead.clientWidth - NAME_ROOM);
    for (let i = first; i < last; i++) {
      const { node, level } = this.rows[i];
      const f = node.info;
      const open = this.expanded.has(node);
      const canOpen = !!node.children?.length || node.pruned;
      const twisty = h('span', { class: `twisty codicon ${canOpen ? (open ? 'codicon-chevron-down' : 'codicon-chevron-right') : ''}` });
      const swatch = h('span', { class: 'swatch' });
      swatch.style.backgroundColor = this.host.color(node);
      const name = h('div', { class: 'cell name' }, twisty, swatch, node.name);
      const indent = level * INDENT + 4;
      name.style.paddingLeft = `${Math.min(indent, maxIndent)}px`;
      if (indent > maxIndent) {
        name.classList.add('capped');
        name.style.setProperty('--indent', `${maxIndent}px`);
      }
      const at = f?.file ? `${f.line ? `:${f.line}` : ''}${f.column ? `:${f.column}` : ''}` : '';
      const loc = f?.file ? `${f.file}${at}` : (f?.lib ?? '');
      // A narrow column cut a long path's end, the part that tells files apart: the cell shows the file's name (with
      // the folders that tell same-named files of the tree apart), the tooltip the whole path.
      const shown = f?.file ? `${this.shortFiles.get(f.file) ?? f.file.split(/[\\/]/).pop()}${at}` : loc;
      const row = h(
        'div',
        {
          class: `row${node === this.selected ? ' selected' : ''}`,
          attrs: { role: 'row', 'aria-level': String(level + 1), 'data-index': String(i), id: `${this.id}-r${i}` },
        },
        h(
          'div',
          { class: 'cell num', attrs: { role: 'gridcell', title: weightNumber(node.self, this.s, this.host.unit()) } },
          pct(node.self, total),
        ),
        h(
          'div',
          { class: 'cell num', attrs: { role: 'gridcell', title: weightNumber(node.value, this.s, this.host.unit()) } },
          pct(node.value, total),
        ),
        name,
        h('div', { class: 'cell loc', attrs: { role: 'gridcell', title: loc } }, shown),
      );
      name.setAttribute('role', 'gridcell');
      row.setAttribute('aria-selected', String(node === this.selected));
      row.setAttribute('aria-rowindex', String(i + 2));
      if (canOpen) row.setAttribute('aria-expanded', String(open));
      if (node === this.selected) this.viewport.setAttribute('aria-activedescendant', row.id);
      row.style.transform = `translateY(${i * ROW}px)`;
      twisty.addEventListener('click', (e) => {
        e.stopPropagation();
        this.toggle(node);
      });
      row.addEventListener('click', (e) => this.choose(node, e.ctrlKey || e.metaKey));
      row.addEventListener('dblclick', () => this.toggle(node));
      this.body.append(row);
    }
  }

  private toggle(n: FNode, open = !this.expanded.has(n)): void {
    if (open) {
      this.expanded.add(n);
      if (n.pruned) this.host.requestExpand(n);
    } else this.expanded.delete(n);
    this.refresh();
  }

  private choose(n: FNode, focus: boolean): void {
    this.selected = n;
    this.host.onSelect(n, focus);
    this.paint();
  }

  private key(e: KeyboardEvent): void {
    const i = this.rows.findIndex((r) => r.node === this.selected);
    const move = (j: number) => {
      const r = this.rows[Math.max(0, Math.min(this.rows.length - 1, j))];
      if (!r) return;
      this.selected = r.node;
      const y = this.rows.indexOf(r) * ROW;
      if (y < this.viewport.scrollTop) this.viewport.scrollTop = y;
      else if (y + ROW > this.viewport.scrollTop + this.viewport.clientHeight)
        this.viewport.scrollTop = y + ROW - this.viewport.clientHeight;
      this.paint();
    };
    const n = this.selected;
    switch (e.key) {
      case 'ArrowDown':
        move(i + 1);
        break;
      case 'ArrowUp':
        move(i - 1);
        break;
      case 'ArrowRight':
        if (n) this.toggle(n, true);
        break;
      case 'ArrowLeft':
        if (n && this.expanded.has(n)) this.toggle(n, false);
        else if (n?.up && n.up !== this.root) move(this.rows.findIndex((r) => r.node === n.up));
        break;
      case 'Enter':
        if (n) this.host.onSelect(n, true);
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}

/** The files of a tree's frames, each once. */
function filesUnder(root: FNode): Set<string> {
  const out = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.info?.file) out.add(n.info.file);
    if (n.children) for (const c of n.children) stack.push(c);
  }
  return out;
}
