// The Timeline tab's three canvases (activity graph, process lanes and tracks with markers, the time-ordered chart):
// how each is painted from what the host sent, and what is under a point of it. Functions of their inputs, so
// TimelineView only keeps state and reads the pointer.
import type { ActivityInfo, FrameInfo, TimelineData, TimeMarker, TimeTrack } from '../src/core/viewer/protocol';
import { CATEGORIES } from '../src/core/viewer/protocol';
import type { Row } from './details';
import { fmt } from './dom';
import { msText } from './transforms';
import { frameLabel, type Strings } from './tree';

export const ROW = 16;
export const GRAPH_H = 72;
export const TRACK_H = 34;
/** Event-loop delay above this is a stall worth seeing. */
export const SLOW_MS = 50;

export type Span = { start: number; end: number };
type Window = { from: number; to: number };
type Lanes = NonNullable<TimelineData['lanes']>;

/** The activity graph: samples per bucket by category, the selected range shaded, the chart's window outlined. */
export function paintGraph(
  c: HTMLCanvasElement,
  w: number,
  a: ActivityInfo | undefined,
  span: Span | undefined,
  sel: Window | undefined,
  view: Window | undefined,
  palette: Record<string, string>,
): void {
  const ctx = sized(c, w, GRAPH_H);
  if (!ctx || !a || !span) return;
  paintBars(ctx, a, w, GRAPH_H, GRAPH_H - 2, Math.max(1, a.peak), palette);
  const x = (t: number) => ((t - span.start) / (span.end - span.start)) * w;
  const fg = cssVar('--vscode-foreground', '#ccc');
  if (sel) {
    ctx.fillStyle = cssVar('--vscode-editor-selectionBackground', 'rgba(38,79,120,0.5)');
    ctx.globalAlpha = 0.45;
    const x0 = Math.max(0, x(sel.from));
    ctx.fillRect(x0, 0, Math.max(2, Math.min(w, x(sel.to)) - x0), GRAPH_H);
    ctx.globalAlpha = 1;
  }
  if (view) {
    ctx.strokeStyle = fg;
    ctx.lineWidth = 1;
    ctx.strokeRect(x(view.from) + 0.5, 0.5, Math.max(1, x(view.to) - x(view.from) - 1), GRAPH_H - 1);
  }
}

/** Samples per bucket stacked by category, `height` px for `peak`, standing on `bottom`. */
function paintBars(
  ctx: CanvasRenderingContext2D,
  a: ActivityInfo,
  w: number,
  bottom: number,
  height: number,
  peak: number,
  p: Record<string, string>,
): void {
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

/** The rows under the graph: one per process (its activity), then each sampled track, then the run's markers. */
export function paintTracks(
  c: HTMLCanvasElement,
  w: number,
  span: Span | undefined,
  lanes: Lanes,
  tracks: TimeTrack[],
  markers: TimeMarker[],
  s: Strings,
  palette: Record<string, string>,
): void {
  const rows = lanes.length + tracks.length;
  const height = rows * TRACK_H + (markers.length ? 26 : 0);
  c.hidden = height === 0;
  if (!height) return;
  const ctx = sized(c, w, height);
  if (!ctx || !span) return;
  const x = (t: number) => ((t - span.start) / (span.end - span.start)) * w;
  const fg = cssVar('--vscode-foreground', '#ccc');
  ctx.font = `10px ${cssVar('--vscode-font-family', 'sans-serif')}`;
  // One row per process, all on one scale (a process busy on one core fills its row).
  const lanePeak = Math.max(1, ...lanes.map((l) => l.activity.peak));
  // The rows' names are written last, on a backing of the editor's colour: a marker's dashed line crossed them.
  const names: Array<[string, number]> = [];
  lanes.forEach((l, r) => {
    paintBars(ctx, l.activity, w, (r + 1) * TRACK_H - 2, TRACK_H - 14, lanePeak, palette);
    names.push([l.thread, r * TRACK_H + 10]);
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
    const peak = Math.max(...t.values);
    const label = t.kind === 'loopDelay' ? fmt(s.tlLoopDelay, msText(peak)) : fmt(s.tlHeapUsed, (peak / 1048576).toFixed(1));
    names.push([`${label}${t.pid ? ` · pid ${t.pid}` : ''}`, top + 10]);
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
  const bg = cssVar('--vscode-editor-background', '#1e1e1e');
  for (const [text, y] of names) {
    ctx.fillStyle = bg;
    ctx.globalAlpha = 0.8;
    ctx.fillRect(2, y - 9, ctx.measureText(text).width + 4, 12);
    ctx.globalAlpha = 1;
    ctx.fillStyle = fg;
    ctx.fillText(text, 4, y);
  }
}

/** The time-ordered chart of the window `v`; how many boxes it drew. */
export function paintChart(
  c: HTMLCanvasElement,
  w: number,
  d: TimelineData | undefined,
  v: Window | undefined,
  sel: Window | undefined,
  colorOfFrame: (frame: number) => string,
  frames: Map<number, FrameInfo>,
): number | undefined {
  const depth = Math.max(1, d?.depth ?? 1);
  const ctx = sized(c, w, depth * ROW + 4);
  if (!ctx || !d || !v) return undefined;
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
    ctx.fillStyle = colorOfFrame(b.frame[i]);
    ctx.fillRect(left, y, Math.max(0.5, bw - 0.5), ROW - 1);
    drawn++;
    if (bw > 30) {
      const f = frames.get(b.frame[i]);
      const name = f ? frameLabel(f) : '';
      ctx.fillStyle = text;
      ctx.fillText(fitText(ctx, name, bw - 6), left + 3, y + ROW / 2);
    }
  }
  if (sel) {
    ctx.fillStyle = cssVar('--vscode-editor-selectionBackground', 'rgba(38,79,120,0.5)');
    ctx.globalAlpha = 0.3;
    const x0 = Math.max(0, (sel.from - v.from) * scale);
    ctx.fillRect(x0, 0, Math.max(2, Math.min(w, (sel.to - v.from) * scale) - x0), depth * ROW + 4);
    ctx.globalAlpha = 1;
  }
  return drawn;
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

export function cssVar(name: string, fallback: string): string {
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

/** The chart's box at `depth` that covers time `t` (the narrowest), as an index into the data's arrays; -1: none. */
export function boxAtTime(d: TimelineData, depth: number, t: number): number {
  const b = d.boxes;
  let best = -1;
  for (let i = 0; i < b.frame.length; i++)
    if (b.depth[i] === depth && b.start[i] <= t && b.end[i] > t && (best < 0 || b.end[i] - b.start[i] < b.end[best] - b.start[best]))
      best = i;
  return best;
}

/** What a box's card says: its function, file:line and category, when it started and how long it ran. */
export function boxCard(d: TimelineData, frames: Map<number, FrameInfo>, i: number, s: Strings): { name: string; rows: Row[] } {
  const b = d.boxes;
  const f = frames.get(b.frame[i]);
  const rows: Row[] = [];
  if (f) {
    rows.push([s.file, f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : s.noFile]);
    rows.push([s.category, s[`cat.${f.category}`] ?? f.category]);
  }
  rows.push([s.tlStart, msText(b.start[i])], [s.tlDuration, msText(b.end[i] - b.start[i])]);
  return { name: f ? frameLabel(f) : '?', rows };
}

/** The stall of a loop-delay track at time `t` (20 ms either side, for the pointer), if there is one. */
export function slowStretchAt(track: TimeTrack, t: number): { from: number; to: number; peak: number } | undefined {
  for (const st of slowStretches(track)) if (t >= st.from - 20 && t <= st.to + 20) return st;
  return undefined;
}
