// The Timeline tab: when the time was spent. An activity graph of the whole profile (samples per bucket,
// stacked by category) with the run's markers and sampled tracks under it, and a time-ordered flame chart of
// the window being looked at. Dragging on the graph (or Shift+dragging in the chart) selects a range, which
// the host applies (the page's range, beside the transform stack), so every other view follows. The host computes everything; the page
// only draws on canvases and asks for another window as the user zooms and pans.
import type { ActivityInfo, FrameInfo, TimelineData, TimeMarker, TimeTrack, WebviewMessage } from '../src/core/viewer/protocol';
import { fillCard, placeTooltip, type Row } from './details';
import { clear, fmt } from './dom';
import { msText } from './transforms';
import type { Strings } from './tree';
import {
  boxAtTime,
  boxCard,
  paintChart,
  paintGraph,
  paintTracks,
  ROW,
  slowStretchAt,
  slowStretches,
  TRACK_H,
  type Span,
} from './timelineCanvas';
import { rangeKey, rangeText, TIMELINE_KEYS, timelineTab } from './timelineTab';
import './timeline.css';

export interface TimelineHost {
  post(m: WebviewMessage): void;
  strings(): Strings;
  palette(): Record<string, string>;
  /** The time range the other views show, if one is selected. */
  range(): { from: number; to: number } | undefined;
  /** Selects another range (undefined: the whole span again). */
  setRange(r: { from: number; to: number } | undefined): void;
  metric(name: string, ms: number): void;
}

export class TimelineView {
  readonly el: HTMLElement;
  private readonly graph: HTMLCanvasElement;
  private readonly tracksEl: HTMLCanvasElement;
  private readonly chart: HTMLCanvasElement;
  private readonly chartBox: HTMLElement;
  private readonly note: HTMLElement;
  private readonly card: HTMLElement;
  private readonly compare: HTMLButtonElement;
  private data: TimelineData | undefined;
  private overview: ActivityInfo | undefined;
  private span: Span | undefined;
  /** The window the chart shows (ms). */
  private view: { from: number; to: number } | undefined;
  private asked = false;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private drag:
    | { where: 'graph' | 'chart'; x0: number; t0: number; view0: { from: number; to: number }; select: boolean; moved: boolean }
    | undefined;
  /** A selection being dragged, before it is sent. */
  private selecting: { from: number; to: number } | undefined;
  private frames = new Map<number, FrameInfo>();
  private markers: TimeMarker[] = [];
  private tracks: TimeTrack[] = [];
  /** A run's processes: each one's activity, a row above the tracks. */
  private lanes: NonNullable<TimelineData['lanes']> = [];
  private requestedAt = 0;

  constructor(
    private readonly host: TimelineHost,
    private readonly tooltip: HTMLElement,
  ) {
    const parts = timelineTab(host.strings(), {
      clear: () => this.host.setRange(undefined),
      whole: () => this.zoomTo(this.span),
      compare: () => {
        const r = this.host.range();
        if (r && this.span && r.to < this.span.end)
          this.host.post({ type: 'compareRanges', before: { from: r.from, to: r.to }, after: { from: r.to, to: this.span.end } });
      },
    });
    ({ el: this.el, graph: this.graph, tracks: this.tracksEl, chart: this.chart, chartBox: this.chartBox } = parts);
    ({ note: this.note, card: this.card, compare: this.compare } = parts);
    this.wire();
    new ResizeObserver(() => this.draw()).observe(this.chartBox);
  }

  /** The tab was shown: the first time, ask for the whole profile. */
  show(): void {
    if (!this.asked) {
      this.asked = true;
      this.request(true);
    } else this.draw();
  }

  /** The picker or a call-tree transform changed which samples there are: another timeline, asked for when shown. */
  samplesChanged(): void {
    this.data = undefined;
    this.overview = undefined;
    this.lanes = [];
    this.view = undefined;
    this.span = undefined;
    this.el.classList.remove('no-time');
    delete this.el.dataset.noTime;
    this.note.textContent = '';
    if (this.asked && this.el.isConnected && this.el.offsetParent !== null) this.request(true);
    else this.asked = false;
  }

  /** The transform stack changed: the selection shown follows it. */
  rangeChanged(): void {
    const r = this.host.range();
    this.compare.disabled = !r || !this.span || r.to >= this.span.end;
    this.drawGraph();
    this.el.dataset.range = JSON.stringify(this.host.range() ?? null);
    this.el.querySelector('.tl-said')!.textContent = rangeText(this.host.strings(), r, this.markers);
  }

  onHost(m: TimelineData): void {
    if (m.noTime) {
      const s = this.host.strings();
      this.note.textContent = m.noTime === 'folded' ? s.tlNoTimeFolded : m.noTime === 'threads' ? s.tlNoTimeThreads : s.tlNoTime;
      this.el.dataset.noTime = m.noTime;
      this.el.classList.add('no-time');
      return;
    }
    this.data = m;
    if (m.overview) {
      this.overview = m.overview;
      this.markers = m.markers ?? [];
      this.tracks = m.tracks ?? [];
      this.lanes = m.lanes ?? [];
      this.el.dataset.lanes = JSON.stringify(this.lanes.map((l) => l.thread));
      this.el.dataset.samples = String(Object.values(m.overview.series).reduce((n, r) => n + (r ?? []).reduce((a, b) => a + b, 0), 0));
    }
    this.span = m.span ?? undefined;
    this.view ??= { from: m.from, to: m.to };
    for (const [id, f] of Object.entries(m.frames)) this.frames.set(Number(id), f);
    this.note.textContent = [m.note, m.truncated ? this.host.strings().tlTruncated : ''].filter(Boolean).join(' ');
    this.el.dataset.boxes = String(m.boxes.frame.length);
    this.el.dataset.window = `${m.from.toFixed(1)}-${m.to.toFixed(1)}`;
    const t0 = performance.now();
    this.draw();
    const drawn = performance.now();
    this.el.dataset.drawMs = (drawn - t0).toFixed(1);
    this.el.dataset.hostMs = m.hostMs.toFixed(1);
    if (this.requestedAt) this.host.metric('timeline', drawn - this.requestedAt);
    this.rangeChanged();
  }

  private request(overview = false): void {
    clearTimeout(this.pending);
    this.requestedAt = performance.now();
    const width = Math.max(100, this.chartBox.clientWidth || 800);
    this.host.post({ type: 'timeline', from: this.view?.from, to: this.view?.to, width, overview });
  }

  /** Shows another window now (scaled from what is here) and asks for its detail. */
  private setView(from: number, to: number): void {
    const span = this.span;
    if (!span) return;
    const min = Math.max(0.05, (span.end - span.start) / 1e6);
    let width = Math.max(min, to - from);
    width = Math.min(width, span.end - span.start);
    from = Math.max(span.start, Math.min(from, span.end - width));
    this.view = { from, to: from + width };
    this.draw();
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.request(), 60);
  }

  private zoomTo(r: { from: number; to: number } | Span | undefined): void {
    if (!r) return;
    const from = 'from' in r ? r.from : r.start;
    const to = 'to' in r ? r.to : r.end;
    this.setView(from, to);
  }

  /** Zooms the chart by `factor` (< 1: in) around time `at`. */
  zoom(factor: number, at?: number): void {
    const v = this.view;
    if (!v) return;
    const c = at ?? (v.from + v.to) / 2;
    this.setView(c - (c - v.from) * factor, c + (v.to - c) * factor);
  }

  pan(fraction: number): void {
    const v = this.view;
    if (!v) return;
    const d = (v.to - v.from) * fraction;
    this.setView(v.from + d, v.to + d);
  }

  /** Keys while the tab shows (TIMELINE_KEYS); true when used. */
  key(e: KeyboardEvent): boolean {
    const act = TIMELINE_KEYS[e.key];
    if (e.shiftKey && rangeKey(e.key, this.view, this.span, this.host)) return true;
    if (!this.view || !act) return false;
    if (act === 'clear') {
      if (!this.host.range()) return false;
      this.host.setRange(undefined);
    } else if (act === 'whole') this.zoomTo(this.span);
    else if (act.zoom) this.zoom(act.zoom);
    else this.pan(act.pan ?? 0);
    return true;
  }

  // ---- coordinates ----

  private graphTime(x: number): number {
    const span = this.span!;
    return span.start + (x / Math.max(1, this.graph.clientWidth)) * (span.end - span.start);
  }

  private chartTime(x: number): number {
    const v = this.view!;
    return v.from + (x / Math.max(1, this.chartBox.clientWidth)) * (v.to - v.from);
  }

  private wire(): void {
    const localX = (el: HTMLElement, e: MouseEvent) => e.clientX - el.getBoundingClientRect().left;
    const down = (where: 'graph' | 'chart') => (e: MouseEvent) => {
      if (e.button !== 0 || !this.view || !this.span) return;
      const el = where === 'graph' ? this.graph : this.chartBox;
      const x = localX(el, e);
      const t = where === 'graph' ? this.graphTime(x) : this.chartTime(x);
      this.drag = { where, x0: e.clientX, t0: t, view0: { ...this.view }, select: where === 'graph' || e.shiftKey, moved: false };
      if (where === 'chart') this.chartBox.focus();
      e.preventDefault();
    };
    this.graph.addEventListener('mousedown', down('graph'));
    this.chartBox.addEventListener('mousedown', down('chart'));
    window.addEventListener('mousemove', (e) => {
      const d = this.drag;
      if (!d) return;
      if (Math.abs(e.clientX - d.x0) > 3) d.moved = true;
      if (!d.moved) return;
      const el = d.where === 'graph' ? this.graph : this.chartBox;
      const x = localX(el, e);
      if (d.select) {
        const t = d.where === 'graph' ? this.graphTime(x) : this.chartTime(x);
        this.selecting = { from: Math.min(d.t0, t), to: Math.max(d.t0, t) };
        this.drawGraph();
        this.drawChart();
      } else {
        const dt = ((e.clientX - d.x0) / Math.max(1, this.chartBox.clientWidth)) * (d.view0.to - d.view0.from);
        this.setView(d.view0.from - dt, d.view0.to - dt);
      }
    });
    window.addEventListener('mouseup', (e) => {
      const d = this.drag;
      this.drag = undefined;
      if (!d) return;
      if (d.select && d.moved && this.selecting) {
        const r = this.selecting;
        this.selecting = undefined;
        this.host.setRange({ from: r.from, to: r.to });
        if (d.where === 'graph') this.zoomTo(r);
        return;
      }
      if (!d.moved) this.click(d.where, e);
    });
    this.chartBox.addEventListener(
      'wheel',
      (e) => {
        if (!this.view) return;
        e.preventDefault();
        if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.pan((e.deltaX || e.deltaY) / 500);
        else this.zoom(Math.exp(e.deltaY / 300), this.chartTime(localX(this.chartBox, e)));
      },
      { passive: false },
    );
    this.chartBox.addEventListener('mousemove', (e) => this.hover(e));
    this.chartBox.addEventListener('mouseleave', () => this.tooltip.classList.remove('visible'));
    this.tracksEl.addEventListener('mousemove', (e) => this.hoverTrack(e));
    this.tracksEl.addEventListener('mouseleave', () => this.tooltip.classList.remove('visible'));
    this.tracksEl.addEventListener('click', (e) => this.clickTrack(e));
  }

  /** The box of the chart under the mouse, as an index into the data's arrays. */
  private boxAt(e: MouseEvent): number {
    if (!this.data || !this.view) return -1;
    const depth = Math.floor((e.clientY - this.chart.getBoundingClientRect().top) / ROW);
    return boxAtTime(this.data, depth, this.chartTime(e.clientX - this.chartBox.getBoundingClientRect().left));
  }

  private click(where: 'graph' | 'chart', e: MouseEvent): void {
    if (where !== 'chart') return;
    const i = this.boxAt(e);
    if (i < 0 || !this.data) return;
    this.showBox(i);
    this.host.post({ type: 'open', frame: this.data.boxes.frame[i], focus: e.ctrlKey || e.metaKey, raw: true });
  }

  private boxRows(i: number): { name: string; rows: Row[] } {
    return boxCard(this.data!, this.frames, i, this.host.strings());
  }

  private showBox(i: number): void {
    const { name, rows } = this.boxRows(i);
    fillCard(this.card, name, rows);
  }

  private hover(e: MouseEvent): void {
    if (this.drag) return;
    const i = this.boxAt(e);
    if (i < 0) {
      this.tooltip.classList.remove('visible');
      return;
    }
    const { name, rows } = this.boxRows(i);
    fillCard(this.tooltip, name, rows, this.colorOfFrame(this.data!.boxes.frame[i]));
    placeTooltip(this.tooltip, e);
  }

  private colorOfFrame(frame: number): string {
    const p = this.host.palette();
    return p[this.frames.get(frame)?.category ?? 'unaccounted'] ?? p.unaccounted;
  }

  // ---- tracks: event-loop delay and heap, with the run's markers ----

  private trackRows(): TimeTrack[] {
    return this.tracks;
  }

  /** The stretch over SLOW_MS under the pointer, on the loop-delay row it is over (each process has its own). */
  private slowStretchAt(e: MouseEvent): { from: number; to: number; peak: number } | undefined {
    const box = this.tracksEl.getBoundingClientRect();
    const track = this.trackRows()[Math.floor((e.clientY - box.top) / TRACK_H) - this.lanes.length];
    if (track?.kind !== 'loopDelay' || !this.span) return undefined;
    return slowStretchAt(track, this.graphTime(e.clientX - box.left));
  }

  private hoverTrack(e: MouseEvent): void {
    const st = this.slowStretchAt(e);
    if (!st) {
      this.tooltip.classList.remove('visible');
      return;
    }
    const s = this.host.strings();
    fillCard(this.tooltip, fmt(s.tlBlocked, msText(st.peak)), [
      [s.tlStart, msText(st.from)],
      [s.tlDuration, msText(st.to - st.from)],
    ]);
    placeTooltip(this.tooltip, e);
  }

  private clickTrack(e: MouseEvent): void {
    const st = this.slowStretchAt(e);
    if (!st) return;
    this.host.setRange({ from: st.from, to: st.to });
    this.zoomTo(st);
  }

  // ---- drawing (timelineCanvas.ts) ----

  draw(): void {
    this.drawGraph();
    const tracks = this.trackRows();
    const delay = tracks.find((t) => t.kind === 'loopDelay');
    this.el.dataset.markers = this.markers.map((m) => m.kind).join(' ');
    this.el.dataset.tracks = tracks.map((t) => `${t.kind} ${t.pid ?? ''}`.trim()).join(', ');
    this.el.dataset.slow = JSON.stringify(delay ? slowStretches(delay).map((st) => [Math.round(st.from), Math.round(st.to)]) : []);
    paintTracks(this.tracksEl, this.width(), this.span, this.lanes, tracks, this.markers, this.host.strings(), this.host.palette());
    this.drawChart();
  }

  private width(): number {
    return this.graph.clientWidth || this.chartBox.clientWidth;
  }

  /** The selected range: the one being dragged, else the host's. */
  private selection(): { from: number; to: number } | undefined {
    return this.selecting ?? this.host.range();
  }

  private drawGraph(): void {
    paintGraph(this.graph, this.width(), this.overview, this.span, this.selection(), this.view, this.host.palette());
  }

  private drawChart(): void {
    const t0 = performance.now();
    const drawn = paintChart(
      this.chart,
      this.chartBox.clientWidth,
      this.data,
      this.view,
      this.selection(),
      (f) => this.colorOfFrame(f),
      this.frames,
    );
    if (drawn === undefined) return;
    this.el.dataset.chartMs = (performance.now() - t0).toFixed(2);
    this.el.dataset.drawn = String(drawn);
  }

  /** The page tears the tab down (a new profile in place). */
  dispose(): void {
    clearTimeout(this.pending);
    clear(this.el);
  }
}
