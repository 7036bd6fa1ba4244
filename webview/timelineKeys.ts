// The Timeline's selection from the keyboard, and said as text: Shift+arrows move the range's end by a twentieth
// of the chart's window (the first press starts it at the window's middle); the range and the run's markers in it
// go to a visually hidden live region (the range chip shows the range to the eye; the layout keeps its height).
import type { TimeMarker } from '../src/core/viewer/protocol';
import { fmt } from './dom';
import { msText } from './transforms';
import type { Strings } from './tree';

type Range = { from: number; to: number };

/** Shift+←/→ on the Timeline: the new range set through the host; false for any other key or before the chart is there. */
export function rangeKey(
  key: string,
  view: Range | undefined,
  span: { start: number; end: number } | undefined,
  host: { range(): Range | undefined; setRange(r: Range): void },
): boolean {
  if (!view || !span) return false;
  const range = host.range();
  const dir = key === 'ArrowRight' ? 1 : key === 'ArrowLeft' ? -1 : 0;
  if (!dir) return false;
  const step = (view.to - view.from) / 20;
  const anchor = range?.from ?? (view.from + view.to) / 2;
  const end = Math.max(span.start, Math.min(span.end, (range?.to ?? anchor) + dir * step));
  // The end crossed the anchor going left: the range grows leftwards from it instead.
  const r = end > anchor ? { from: anchor, to: end } : { from: Math.max(span.start, anchor - step), to: anchor };
  if (r.to - r.from > 0) host.setRange(r);
  return true;
}

/** The selected range (or that there is none) and the markers it holds (all of them without a range). */
export function rangeText(s: Strings, range: Range | undefined, markers: readonly TimeMarker[]): string {
  const head = range ? fmt(s.tlRangeSaid, msText(range.from), msText(range.to), msText(range.to - range.from)) : s.tlNoRangeSaid;
  const inside = markers.filter((m) => !range || (m.at >= range.from && m.at <= range.to));
  const said = inside.map((m) => fmt(s.tlMarkerAt, m.label, msText(m.at)));
  return said.length ? `${head} ${fmt(s.tlMarkersSaid, said.join(', '))}` : head;
}
