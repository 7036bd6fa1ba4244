// The flame graph's search box: frames that match are marked in the page at once, and the host answers what
// share of the samples they cover (it has every frame, the page only the drawn ones).
import type { HostMessage, TreeKind } from '../src/core/viewer/protocol';
import { fmt } from './dom';
import type { FlameView } from './flame';
import type { ViewerState } from './viewerState';

export interface SearchUi {
  search: HTMLInputElement;
  regex: { checked: boolean };
  matched: HTMLElement;
}

/** How much of a name a regular expression is tried on (the host's MAX_MATCH_CHARS). */
const MATCH_CHARS = 256;

export class FlameSearch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A regular expression waiting for the host to accept its shape. */
  private pending: { term: string; re: RegExp } | undefined;

  constructor(private readonly st: ViewerState) {}

  private ui(): SearchUi | undefined {
    return this.st.views.ui;
  }

  private flames(): Record<TreeKind, FlameView> {
    return this.st.views.flames;
  }

  /** Runs the search shortly after typing stops. */
  schedule(): void {
    if (!this.ui()) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), 120);
  }

  private run(): void {
    const ui = this.ui()!;
    const s = this.st.strings;
    const flames = this.flames();
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
        this.pending = { term, re: new RegExp(term, 'i') };
      } catch (e) {
        ui.matched.textContent = fmt(s.badRegex, (e as Error).message);
        return;
      }
      // A pattern can take minutes on a long name (`a*a*a*!`): the page marks frames once the host has
      // checked its shape (onHost), and tries it on the head of each name only, as the host does.
      this.st.post({ type: 'search', tree: this.st.kind, term, regex: true });
      return;
    } else {
      const lower = term.toLowerCase();
      test = (x) => x.toLowerCase().includes(lower);
    }
    flames[this.st.kind].search((n) => test(n.info?.name ?? n.name));
    this.st.post({ type: 'search', tree: this.st.kind, term, regex: useRegex });
  }

  /** The host's share of samples for a term, shown unless the user typed on meanwhile. */
  onHost(m: Extract<HostMessage, { type: 'search' }>): void {
    const ui = this.ui();
    if (!ui || m.term !== ui.search.value) return;
    const s = this.st.strings;
    ui.matched.textContent = m.error ? fmt(s.badRegex, m.error) : fmt(s.matched, (100 * m.fraction).toFixed(m.fraction >= 0.1 ? 1 : 2));
    const re = this.pending?.term === m.term && ui.regex.checked ? this.pending.re : undefined;
    if (re) {
      this.pending = undefined;
      const flames = this.flames();
      if (m.error) flames[this.st.kind].search(undefined);
      else flames[this.st.kind].search((n) => re.test((n.info?.name ?? n.name).slice(0, MATCH_CHARS)));
    }
    ui.matched.dataset.fraction = String(m.fraction);
  }
}
