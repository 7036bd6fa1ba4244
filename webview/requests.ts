// The Requests tab: per HTTP route the requests, latency percentiles, CPU per request and share of the samples; the
// routes picked (checkboxes) are what the flame graph, tables, CodeLens and heat show; the slowest requests, a click
// selects one's time span on the Timeline.
import type { RequestsData } from '../src/core/viewer/protocol';
import { clear, fmt, h } from './dom';
import type { Strings } from './tree';
import { tabHeader, tabPanel } from './widgets';
import './requests.css';

export interface RequestsHost {
  post(m: { type: 'requests' } | { type: 'routes'; routes: string[] | null }): void;
  /** A request's span picked: the Timeline's range, and the Timeline shown. */
  showSpan(from: number, to: number): void;
  /** Before the routes change: the page's trees of the old choice are stale. */
  routesChanging(): void;
}

/**
 * The tab's header and panel appended to `tabs`; its view. `showSpan` selects a request's span and shows the Timeline;
 * `routesChanging` is called before a new choice of routes, a new generation of trees as a choice of processes is.
 */
export function requestsTab(
  s: Strings,
  tabs: HTMLElement,
  post: RequestsHost['post'],
  showSpan: (r: { from: number; to: number }) => void,
  routesChanging: () => void,
  lateTicks = false,
): RequestsView {
  const view = new RequestsView(s, { post, showSpan: (from, to) => showSpan({ from, to }), routesChanging }, lateTicks);
  tabs.append(tabHeader(s.tabRequests, 'requests'), tabPanel(view.el));
  return view;
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

export class RequestsView {
  readonly el: HTMLElement;
  private data: RequestsData | undefined;
  private asked = false;

  constructor(
    private readonly s: Strings,
    private readonly host: RequestsHost,
    /** A --prof log's requests: its ticks' times are when they were written (see rqLateTicks). */
    private readonly lateTicks = false,
  ) {
    this.el = h('div', { class: 'requests-tab', attrs: { 'aria-live': 'polite' } }, s.rqLoading);
  }

  /** The tab is shown: its figures are asked for the first time. */
  show(): void {
    if (this.asked) return;
    this.asked = true;
    this.host.post({ type: 'requests' });
  }

  /** The figures again after a change of range or processes, when the tab has been opened. */
  refresh(): void {
    if (this.asked) this.host.post({ type: 'requests' });
  }

  onHost(m: RequestsData): void {
    this.data = m;
    this.render();
  }

  private pick(routes: string[]): void {
    this.host.routesChanging();
    this.host.post({ type: 'routes', routes: routes.length ? routes : null });
  }

  private render(): void {
    const s = this.s;
    const m = this.data;
    clear(this.el);
    if (!m?.summary) {
      this.el.append(h('p', { class: 'rq-note' }, s.rqNone));
      return;
    }
    const picked = new Set(m.routes);
    const clearButton = h('button', { class: 'rq-clear', attrs: { type: 'button' } }, s.rqAll);
    clearButton.disabled = !picked.size;
    clearButton.addEventListener('click', () => this.pick([]));
    const head = h('tr', null, ...[s.rqRoute, s.rqCount, 'p50', 'p95', 'p99', s.rqCpu, s.rqShare].map((t) => h('th', null, t)));
    const rows = m.summary.routes.map((r) => {
      const box = h('input', { attrs: { type: 'checkbox', 'aria-label': fmt(s.rqPick, r.key) } });
      box.checked = picked.has(r.key);
      box.addEventListener('change', () => this.pick(box.checked ? [...picked, r.key] : [...picked].filter((k) => k !== r.key)));
      const none = r.count === 0;
      return h(
        'tr',
        { class: picked.has(r.key) ? 'rq-picked' : '', attrs: { 'data-route': r.key } },
        h('td', { class: 'rq-route' }, h('label', null, box, ' ', r.key)),
        h(
          'td',
          r.aborted ? { attrs: { title: s.rqAbortedHint } } : null,
          r.aborted ? fmt(s.rqCountAborted, r.count, r.aborted) : String(r.count),
        ),
        h('td', null, none ? '' : `${ms(r.p50)} ms`),
        h('td', null, none ? '' : `${ms(r.p95)} ms`),
        h('td', null, none ? '' : `${ms(r.p99)} ms`),
        h('td', null, none ? `${ms(r.cpuMs)} ms` : `${ms(r.cpuMsPerRequest)} ms`),
        h('td', null, `${(r.share * 100).toFixed(1)}%`),
      );
    });
    const slowHead = h('tr', null, ...[s.rqRoute, s.rqStatus, s.rqLatency, s.rqAt].map((t) => h('th', null, t)));
    const slow = m.summary.slowest.map((r) => {
      const go = h('button', { class: 'rq-span', attrs: { type: 'button', title: s.rqSpanHint } }, r.key);
      go.addEventListener('click', () => this.host.showSpan(r.start, r.end));
      return h(
        'tr',
        null,
        h('td', { class: 'rq-route' }, go),
        h('td', r.aborted ? { class: 'rq-aborted', attrs: { title: s.rqAbortedHint } } : null, r.aborted ? s.rqAborted : String(r.status)),
        h('td', null, `${ms(r.ms)} ms`),
        h('td', null, `${(r.start / 1000).toFixed(3)} s`),
      );
    });
    const all = m.summary.all;
    this.el.append(
      h('div', { class: 'toolbar' }, h('span', { class: 'rq-note' }, fmt(s.rqTotals, all.count, ms(all.p50), ms(all.p99))), clearButton),
      h('table', { class: 'rq-routes' }, h('thead', null, head), h('tbody', null, ...rows)),
      h('p', { class: 'rq-note' }, s.rqHint),
    );
    if (this.lateTicks) this.el.append(h('p', { class: 'rq-note rq-late' }, s.rqLateTicks));
    this.el.append(h('h2', null, s.rqSlowest), h('table', { class: 'rq-slowest' }, h('thead', null, slowHead), h('tbody', null, ...slow)));
  }
}
