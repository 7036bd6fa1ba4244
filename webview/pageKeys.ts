// Where a key press goes on the viewer page: Alt+F2 (the Accessible View) from anywhere, typing in a field keeps it
// (Escape leaves the field), then `?` (the shortcuts), the transforms' keys, `/` to the search or the tables' filter, then the tab shown (flame graph or Timeline).
export interface KeyTargets {
  /** 0: flame graph, 1: tables, 3: Timeline. */
  tab(): number;
  search(): HTMLElement;
  filter(): HTMLElement;
  transforms?: { key(e: KeyboardEvent): boolean };
  flame(): { key(e: KeyboardEvent): boolean };
  timeline?: { key(e: KeyboardEvent): boolean };
  help?(): void;
  accessibleView?(): void;
}

export const FLAME_TAB = 0;
export const TABLES_TAB = 1;
/** The Timeline comes after the flame graph, tables and summary tabs. */
export const TIMELINE_TAB = 3;
/** The Requests tab, after the Timeline, when the run recorded HTTP requests. */
export const REQUESTS_TAB = 4;

export function routeKey(e: KeyboardEvent, to: KeyTargets): void {
  const t = e.target as HTMLElement;
  if (e.altKey && e.key === 'F2' && to.accessibleView) {
    e.preventDefault();
    to.accessibleView();
    return;
  }
  if (/^(INPUT|TEXTAREA|VSCODE-TEXTFIELD|VSCODE-SINGLE-SELECT)$/.test(t.tagName)) {
    if (e.key === 'Escape') t.blur();
    return;
  }
  if (e.key === '?' && to.help) {
    e.preventDefault();
    to.help();
    return;
  }
  if (to.transforms?.key(e)) {
    e.preventDefault();
    return;
  }
  if (e.key === '/') {
    e.preventDefault();
    (to.tab() === TABLES_TAB ? to.filter() : to.search()).focus();
    return;
  }
  // A focused control keeps its own keys (a tab header's arrows, a button's Space).
  if (/^(VSCODE-TAB-HEADER|VSCODE-BUTTON|BUTTON|VSCODE-CHECKBOX)$/.test(t.tagName)) return;
  if (to.tab() === FLAME_TAB && to.flame().key(e)) e.preventDefault();
  if (to.tab() === TIMELINE_TAB && to.timeline?.key(e)) e.preventDefault();
}
