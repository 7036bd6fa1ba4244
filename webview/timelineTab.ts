// The Timeline tab's controls: its elements (toolbar with compare, whole span and clear; the canvases; the details
// card) and its keys.
import { h } from './dom';
import type { Strings } from './tree';
export { rangeKey, rangeText } from './timelineKeys';

export interface TimelineTabParts {
  el: HTMLElement;
  graph: HTMLCanvasElement;
  tracks: HTMLCanvasElement;
  chart: HTMLCanvasElement;
  chartBox: HTMLElement;
  note: HTMLElement;
  card: HTMLElement;
  compare: HTMLButtonElement;
}

export function timelineTab(s: Strings, on: { clear(): void; whole(): void; compare(): void }): TimelineTabParts {
  const graph = h('canvas', { class: 'tl-graph', attrs: { 'aria-label': s.tlActivity, role: 'img' } });
  const tracks = h('canvas', { class: 'tl-tracks', attrs: { 'aria-label': s.tlTracks, role: 'img' } });
  const chart = h('canvas', { class: 'tl-chart', attrs: { 'aria-label': s.tlChart, role: 'img' } });
  const chartBox = h('div', { class: 'tl-chart-box', attrs: { tabindex: '0' } }, chart);
  const note = h('div', { class: 'tl-note', attrs: { 'aria-live': 'polite' } });
  const card = h('div', { class: 'tl-details', attrs: { tabindex: '0' } }, s.tlHint);
  const said = h('div', { class: 'tl-said sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
  const clearButton = h('button', { class: 'tl-clear', attrs: { type: 'button' } }, s.tlClear);
  clearButton.addEventListener('click', on.clear);
  const whole = h('button', { class: 'tl-whole', attrs: { type: 'button' } }, s.tlWhole);
  whole.addEventListener('click', on.whole);
  // The selection against what follows it: startup against the rest, one request against the next.
  const compare = h('button', { class: 'tl-compare', attrs: { type: 'button', title: s.tlCompareHint } }, s.tlCompare);
  compare.disabled = true;
  compare.addEventListener('click', on.compare);
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    h('span', { class: 'tl-title' }, s.tlActivity),
    h('span', { class: 'grow' }),
    compare,
    whole,
    clearButton,
  );
  const el = h('div', { class: 'timeline-tab' }, toolbar, said, note, h('div', { class: 'tl-graphs' }, graph, tracks), chartBox, card);
  return { el, graph, tracks, chart, chartBox, note, card, compare };
}

/** The tab's keys: zoom the chart in or out, pan it, show the whole span, clear the range. */
export const TIMELINE_KEYS: Record<string, { zoom?: number; pan?: number } | 'whole' | 'clear'> = {
  '+': { zoom: 0.5 },
  '=': { zoom: 0.5 },
  '-': { zoom: 2 },
  _: { zoom: 2 },
  ArrowLeft: { pan: -0.2 },
  ArrowRight: { pan: 0.2 },
  '0': 'whole',
  Home: 'whole',
  Escape: 'clear',
};
