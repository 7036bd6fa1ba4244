import type { ProfileInfo } from '../src/core/viewer/protocol';
import { CATEGORIES, formatWeight } from '../src/core/viewer/protocol';
import { clear, fmt, h, pct } from './dom';
import { weightNumber } from './units';
import { renderFindings } from './findings';
import type { Strings } from './tree';

function table(rows: Array<[string, string, string?]>, swatches?: Map<string, string>): HTMLTableElement {
  return h(
    'table',
    { class: 'kv' },
    ...rows.map(([k, v, extra]) => {
      const key = h('th', null);
      const color = swatches?.get(k);
      if (color) {
        const sw = h('span', { class: 'swatch' });
        sw.style.backgroundColor = color;
        key.append(sw);
      }
      key.append(k);
      return h('tr', null, key, h('td', { class: 'num' }, v), extra !== undefined ? h('td', { class: 'num dim' }, extra) : null);
    }),
  );
}

/** The Summary tab: the tick processor's groups, our categories, and how the profile was taken. */
export function renderSummary(
  el: HTMLElement,
  info: ProfileInfo,
  s: Strings,
  colors: Record<string, string>,
  reveal?: (frame: number) => void,
): void {
  clear(el);
  if (info.findings) renderFindings(el, info.findings, s, reveal);
  const w = info.totalWeight;
  const row = (label: string, v: number): [string, string, string] => [label, pct(v, w), weightNumber(v, s, info.unit)];
  el.append(
    h('h2', null, s.tickSummary),
    table([
      row(s.javascript, info.tick.javascript),
      row(s.cpp, info.tick.cpp),
      row(s.gc, info.tick.gc),
      row(s.sharedLibraries, info.tick.sharedLibraries),
      row(s.unaccounted, info.tick.unaccounted),
      row(s.other, info.tick.other),
    ]),
  );
  const sw = new Map<string, string>();
  const cats = CATEGORIES.filter((c) => info.categories[c] > 0).map((c) => {
    sw.set(s[`cat.${c}`], colors[c]);
    return row(s[`cat.${c}`], info.categories[c]);
  });
  el.append(h('h2', null, s.ourCategories), table(cats, sw));
  const facts: Array<[string, string]> = [
    [s.file_, info.path],
    [s.format, info.format],
    [s.mode, info.mode ?? s.unknown],
    [s.command, info.command ?? s.unknown],
    [s.nodeVersion, info.nodeVersion ?? s.unknown],
    ...(info.v8Version ? [[s.v8Version, info.v8Version] as [string, string]] : []),
    [s.duration, info.durationMs !== null ? `${(info.durationMs / 1000).toFixed(2)} s` : s.unknown],
    [
      s.interval,
      info.intervalMs
        ? `${info.intervalMs.toFixed(3)} ms`
        : info.intervalBytes
          ? formatWeight(info.intervalBytes, 'bytes', document.documentElement.lang || navigator.language)
          : s.unknown,
    ],
    (info.unit ?? 'samples') === 'samples'
      ? [s.totalSamples, String(Math.round(w))]
      : [fmt(s.totalOf, info.sampleType ?? info.unit ?? ''), weightNumber(w, s, info.unit)],
  ];
  el.append(
    h('h2', null, s.threads),
    table(info.threads.map((t) => [t.name, pct(t.samples, w), weightNumber(t.samples, s, info.unit)])),
    h('table', { class: 'kv' }, ...facts.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v)))),
  );
  if (info.warnings.length)
    el.append(h('h2', null, s.warnings), h('ul', { class: 'warnings' }, ...info.warnings.map((x) => h('li', null, x))));
}
