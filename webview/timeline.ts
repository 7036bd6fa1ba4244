// The Timeline tab: when the time was spent. An activity graph of the whole profile (samples per bucket,
// stacked by category) with the run's markers and sampled tracks under it, and a time-ordered flame chart of
// the window being looked at. Dragging on the graph (or Shift+dragging in the chart) selects a range, which
// becomes the host's `range` transform, so every other view follows. The host computes everything; the page
// only draws on canvases and asks for another window as the user zooms and pans.
import type { ActivityInfo, FrameInfo, TimelineData, TimeMarker, TimeTrack, WebviewMessage } from '../src/core/viewer/protocol';
import { CATEGORIES } from '../src/core/viewer/protocol';
import { fillCard, placeTooltip, type Row } from './details';
import { clear, fmt, h } from './dom';
import { msText } from './transforms';
import type { Strings } from './tree';
import './timeline.css';

export interface TimelineHost {
  post(m: WebviewMessage): void;
  strings(): Strings;
  palette(): Record<string, string>;
  /** The range transform of the stack, if there is one. */
  range(): { from: number; to: number } | undefined;
  /** Puts a range transform on the stack (replacing one there), or takes it off. */
  setRange(r: { from: number; to: number } | undefined): void;
  metric(name: string, ms: number): void;
}

const ROW = 16;
const GRAPH_H = 72;
const TRACK_H = 34;
/** Event-loop delay above this is a stall worth seeing. */
const SLOW_MS = 50;

type Span = { start: number; end: number };

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
    const s = host.strings();
    this.graph = h('canvas', { class: 'tl-graph', attrs: { 'aria-label': s.tlActivity, role: 'img' } });
    this.tracksEl = h('canvas', { class: 'tl-tracks', attrs: { 'aria-label': s.tlTracks, role: 'img' } });
    this.chart = h('canvas', { class: 'tl-chart', attrs: { 'aria-label': s.tlChart, role: 'img' } });
    this.chartBox = h('div', { class: 'tl-chart-box', attrs: { tabindex: '0' } }, this.chart);
    this.note = h('div', { class: 'tl-note', attrs: { 'aria-live': 'polite' } });
    this.card = h('div', { class: 'tl-details' }, s.tlHint);
    const clearButton = h('button', { class: 'tl-clear', attrs: { type: 'button' } }, s.tlClear);
    clearButton.addEventListener('click', () => this.host.setRange(undefined));
    const whole = h('button', { class: 'tl-whole', attrs: { type: 'button' } }, s.tlWhole);
    whole.addEventListener('click', () => this.zoomTo(this.span));
    // The selection against what follows it: startup against the rest, one request against the next.
    this.compare = h('button', { class: 'tl-compare', attrs: { type: 'button', title: s.tlCompareHint } }, s.tlCompare);
    this.compare.disabled = true;
    this.compare.addEventListener('click', () => {
      const r = this.host.range();
      if (r && this.span && r.to < this.span.end)
        this.host.post({ type: 'compareRanges', before: { from: r.from, to: r.to }, after: { from: r.to, to: this.span.end } });
    });
    this.el = h(
      'div',
      { class: 'timeline-tab' },
      h(
        'div',
        { class: 'toolbar' },
        h('span', { class: 'tl-title' }, s.tlActivity),
        h('span', { class: 'grow' }),
        this.compare,
        whole,
        clearButton,
      ),
      this.note,
      h('div', { class: 'tl-graphs' }, this.graph, this.tracksEl),
      this.chartBox,
      this.card,
    );
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

  /** Keys while the tab shows; true when used. */
  key(e: KeyboardEvent): boolean {
    if (!this.view) return false;
    switch (e.key) {
      case '+':
      case '=':
        this.zoom(0.5);
        return true;
      case '-':
      case '_':
        this.zoom(2);
        return true;
      case 'ArrowLeft':
        this.pan(-0.2);
        return true;
      case 'ArrowRight':
        this.pan(0.2);
        return true;
      case '0':
      case 'Home':
        this.zoomTo(this.span);
        return true;
      case 'Escape':
        if (!this.host.range()) return false;
        this.host.setRange(undefined);
        return true;
    }
    return false;
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
    const d = this.data;
    const v = this.view;
    if (!d || !v) return -1;
    const r = this.chart.getBoundingClientRect();
    const depth = Math.floor((e.clientY - r.top) / ROW);
    const t = this.chartTime(e.clientX - this.chartBox.getBoundingClientRect().left);
    const b = d.boxes;
    let best = -1;
    for (let i = 0; i < b.frame.length; i++)
      if (b.depth[i] === depth && b.start[i] <= t && b.end[i] > t && (best < 0 || b.end[i] - b.start[i] < b.end[best] - b.start[best]))
        best = i;
    return best;
  }

  private click(where: 'graph' | 'chart', e: MouseEvent): void {
    if (where !== 'chart') return;
    const i = this.boxAt(e);
    if (i < 0 || !this.data) return;
    this.showBox(i);
    this.host.post({ type: 'open', frame: this.data.boxes.frame[i], focus: e.ctrlKey || e.metaKey, raw: true });
  }

  private boxRows(i: number): { name: string; rows: Row[] } {
    const s = this.host.strings();
    const b = this.data!.boxes;
    const f = this.frames.get(b.frame[i]);
    const rows: Row[] = [];
    if (f) {
      rows.push([s.file, f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : s.noFile]);
      rows.push([s.category, s[`cat.${f.category}`] ?? f.category]);
    }
    rows.push([s.tlStart, msText(b.start[i])], [s.tlDuration, msText(b.end[i] - b.start[i])]);
    return { name: f?.name ?? '?', rows };
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
    const t = this.graphTime(e.clientX - box.left);
    for (const st of slowStretches(track)) if (t >= st.from - 20 && t <= st.to + 20) return st;
    return undefined;
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

  // ---- drawing ----

  draw(): void {
    this.drawGraph();
    this.drawTracks();
    this.drawChart();
  }

  private drawGraph(): void {
    const a = this.overview;
    const span = this.span;
    const ctx = sized(this.graph, this.graph.clientWidth || this.chartBox.clientWidth, GRAPH_H);
    if (!ctx || !a || !span) return;
    const w = this.graph.clientWidth || this.chartBox.clientWidth;
    this.bars(ctx, a, w, GRAPH_H, GRAPH_H - 2, Math.max(1, a.peak));
    const x = (t: number) => ((t - span.start) / (span.end - span.start)) * w;
    const fg = cssVar('--vscode-foreground', '#ccc');
    // The selected range (the stack's, or the one being dragged) and the chart's window.
    const sel = this.selecting ?? this.host.range();
    if (sel) {
      ctx.fillStyle = cssVar('--vscode-editor-selectionBackground', 'rgba(38,79,120,0.5)');
      ctx.globalAlpha = 0.45;
      const x0 = Math.max(0, x(sel.from));
      ctx.fillRect(x0, 0, Math.max(2, Math.min(w, x(sel.to)) - x0), GRAPH_H);
      ctx.globalAlpha = 1;
    }
    if (this.view) {
      ctx.strokeStyle = fg;
      ctx.lineWidth = 1;
      ctx.strokeRect(x(this.view.from) + 0.5, 0.5, Math.max(1, x(this.view.to) - x(this.view.from) - 1), GRAPH_H - 1);
    }
  }

  /** Samples per bucket stacked by category, `height` px for `peak`, standing on `bottom`. */
  private bars(ctx: CanvasRenderingContext2D, a: ActivityInfo, w: number, bottom: number, height: number, peak: number): void {
    const p = this.host.palette();
    const n = Math.max(...Object.values(a.series).map((r) => r!.length), 1);
    const bw = w / n;
    const base = new Float64Array(n);
    for (const c of CATEGORIES) {
      const row = a.series[c];
      if (!row) continue;
      ctx.fillStyle = p[c] ?? p.unaccounted;
      for (let i = 0; i < n; i++) {
        const v = row[i];
        if (!v) continue;
        const hh = (v / peak) * height;
        ctx.fillRect(i * bw, bottom - base[i] - hh, Math.max(bw, 1), hh);
        base[i] += hh;
      }
    }
  }

  private drawTracks(): void {
    const span = this.span;
    const tracks = this.trackRows();
    const markers = this.markers;
    const delay = tracks.find((t) => t.kind === 'loopDelay');
    this.el.dataset.markers = markers.map((m) => m.kind).join(' ');
    this.el.dataset.tracks = tracks.map((t) => `${t.kind} ${t.pid ?? ''}`.trim()).join(', ');
    this.el.dataset.slow = JSON.stringify(delay ? slowStretches(delay).map((st) => [Math.round(st.from), Math.round(st.to)]) : []);
    const lanes = this.lanes;
    const rows = lanes.length + tracks.length;
    const height = rows * TRACK_H + (markers.length ? 26 : 0);
    this.tracksEl.hidden = height === 0;
    if (!height) return;
    const w = this.graph.clientWidth || this.chartBox.clientWidth;
    const ctx = sized(this.tracksEl, w, height);
    if (!ctx || !span) return;
    const x = (t: number) => ((t - span.start) / (span.end - span.start)) * w;
    const fg = cssVar('--vscode-foreground', '#ccc');
    const s = this.host.strings();
    ctx.font = `10px ${cssVar('--vscode-font-family', 'sans-serif')}`;
    // One row per process, all on one scale (a process busy on one core fills its row).
    const lanePeak = Math.max(1, ...lanes.map((l) => l.activity.peak));
    lanes.forEach((l, r) => {
      this.bars(ctx, l.activity, w, (r + 1) * TRACK_H - 2, TRACK_H - 14, lanePeak);
      ctx.fillStyle = fg;
      ctx.fillText(l.thread, 4, r * TRACK_H + 10);
    });
    tracks.forEach((t, r) => {
      const top = (lanes.length + r) * TRACK_H;
      const max = Math.max(...t.values, t.kind === 'loopDelay' ? SLOW_MS * 2 : 1);
      if (t.kind === 'loopDelay') {
        ctx.fillStyle = cssVar('--vscode-editorError-foreground', '#f14c4c');
        ctx.globalAlpha = 0.35;
        for (const st of slowStretches(t)) ctx.fillRect(x(st.from), top, Math.max(2, x(st.to) - x(st.from)), TRACK_H - 2);
        ctx.globalAlpha = 1;
      }
      ctx.strokeStyle = t.kind === 'loopDelay' ? cssVar('--vscode-charts-orange', '#d18616') : cssVar('--vscode-charts-blue', '#3794ff');
      ctx.beginPath();
      t.times.forEach((tm, i) => {
        const y = top + TRACK_H - 2 - (t.values[i] / max) * (TRACK_H - 12);
        if (i) ctx.lineTo(x(tm), y);
        else ctx.moveTo(x(tm), y);
      });
      ctx.stroke();
      ctx.fillStyle = fg;
      const peak = Math.max(...t.values);
      const label = t.kind === 'loopDelay' ? fmt(s.tlLoopDelay, msText(peak)) : fmt(s.tlHeapUsed, (peak / 1048576).toFixed(1));
      ctx.fillText(`${label}${t.pid ? ` · pid ${t.pid}` : ''}`, 4, top + 10);
    });
    if (markers.length) {
      const top = rows * TRACK_H;
      ctx.strokeStyle = fg;
      ctx.fillStyle = fg;
      // Labels of markers close together go on the second line rather than over each other.
      const lineEnd = [-Infinity, -Infinity];
      for (const m of markers) {
        const mx = Math.round(x(m.at)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(mx, 0);
        ctx.lineTo(mx, height);
        ctx.setLineDash([2, 2]);
        ctx.stroke();
        ctx.setLineDash([]);
        const tw = ctx.measureText(m.label).width;
        const lx = Math.max(0, Math.min(mx + 3, w - tw - 2));
        const line = lx > lineEnd[0] + 4 ? 0 : lx > lineEnd[1] + 4 ? 1 : lineEnd[0] <= lineEnd[1] ? 0 : 1;
        lineEnd[line] = lx + tw;
        ctx.fillText(m.label, lx, top + 11 + line * 12);
      }
    }
  }

  private drawChart(): void {
    const d = this.data;
    const v = this.view;
    const w = this.chartBox.clientWidth;
    const depth = Math.max(1, d?.depth ?? 1);
    const ctx = sized(this.chart, w, depth * ROW + 4);
    if (!ctx || !d || !v) return;
    const t0 = performance.now();
    const scale = w / (v.to - v.from);
    const b = d.boxes;
    ctx.font = `11px ${cssVar('--vscode-font-family', 'sans-serif')}`;
    ctx.textBaseline = 'middle';
    const text = cssVar('--vscode-editor-background', '#1e1e1e');
    let drawn = 0;
    for (let i = 0; i < b.frame.length; i++) {
      const x0 = (b.start[i] - v.from) * scale;
      const x1 = (b.end[i] - v.from) * scale;
      if (x1 < 0 || x0 > w || x1 - x0 < 0.3) continue;
      const y = b.depth[i] * ROW;
      const left = Math.max(0, x0);
      const bw = Math.min(w, x1) - left;
      ctx.fillStyle = this.colorOfFrame(b.frame[i]);
      ctx.fillRect(left, y, Math.max(0.5, bw - 0.5), ROW - 1);
      drawn++;
      if (bw > 30) {
        const name = this.frames.get(b.frame[i])?.name ?? '';
        ctx.fillStyle = text;
        ctx.fillText(fitText(ctx, name, bw - 6), left + 3, y + ROW / 2);
      }
    }
    const sel = this.selecting ?? this.host.range();
    if (sel) {
      ctx.fillStyle = cssVar('--vscode-editor-selectionBackground', 'rgba(38,79,120,0.5)');
      ctx.globalAlpha = 0.3;
      const x0 = Math.max(0, (sel.from - v.from) * scale);
      ctx.fillRect(x0, 0, Math.max(2, Math.min(w, (sel.to - v.from) * scale) - x0), depth * ROW + 4);
      ctx.globalAlpha = 1;
    }
    this.el.dataset.chartMs = (performance.now() - t0).toFixed(2);
    this.el.dataset.drawn = String(drawn);
  }

  /** The page tears the tab down (a new profile in place). */
  dispose(): void {
    clearTimeout(this.pending);
    clear(this.el);
  }
}

/** Stretches of a loop-delay track over SLOW_MS: consecutive readings above it, with the highest. */
export function slowStretches(t: TimeTrack): { from: number; to: number; peak: number }[] {
  const out: { from: number; to: number; peak: number }[] = [];
  let cur: { from: number; to: number; peak: number } | undefined;
  t.times.forEach((tm, i) => {
    const v = t.values[i];
    if (v > SLOW_MS) {
      // A reading covers the stall that ended at its time: it started about `v` ms earlier.
      if (!cur) out.push((cur = { from: Math.max(0, tm - v), to: tm, peak: v }));
      cur.to = tm;
      cur.peak = Math.max(cur.peak, v);
    } else cur = undefined;
  });
  return out;
}

/** A canvas sized for the screen's pixel ratio, cleared; its context draws in CSS pixels. */
function sized(c: HTMLCanvasElement, w: number, hh: number): CanvasRenderingContext2D | null {
  const r = window.devicePixelRatio || 1;
  if (w <= 0) return null;
  if (c.width !== Math.round(w * r) || c.height !== Math.round(hh * r)) {
    c.width = Math.round(w * r);
    c.height = Math.round(hh * r);
    c.style.width = `${w}px`;
    c.style.height = `${hh}px`;
  }
  const ctx = c.getContext('2d');
  if (!ctx) return null;
  ctx.setTransform(r, 0, 0, r, 0, 0);
  ctx.clearRect(0, 0, w, hh);
  return ctx;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** The name cut to fit `width` pixels, with an ellipsis. */
function fitText(ctx: CanvasRenderingContext2D, s: string, width: number): string {
  if (ctx.measureText(s).width <= width) return s;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(s.slice(0, mid) + '…').width <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo ? s.slice(0, lo) + '…' : '';
}
