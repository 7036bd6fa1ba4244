// The process and thread picker of a profile of several processes (a run's process tree) or threads: one,
// several or all of them shown, merged by function. The host keeps the whole profile and sends the trees of
// the choice; each row's share is of every sample, whatever is chosen.
import type { ProcessRow, ProfileInfo } from '../src/core/viewer/protocol';
import { clear, fmt, h, pct } from './dom';
import type { Strings } from './tree';
import './processes.css';

export interface ProcessPicker {
  el: HTMLElement;
  /** New facts from the host (after a choice or a transform): the rows' state follows `shownThreads`. */
  update(info: ProfileInfo): void;
}

/** The picker, or undefined for a profile of one process and one thread (nothing to choose). */
export function processPicker(info: ProfileInfo, s: Strings, choose: (threads: string[] | null) => void): ProcessPicker | undefined {
  if (!info.processes?.length) return undefined;
  const el = h('details', { class: 'processes' });
  const head = h('summary', null);
  const list = h('div', { class: 'proc-list', attrs: { role: 'group', 'aria-label': s.procTitle } });
  el.append(head, list);
  let current = info;

  const render = () => {
    const rows: ProcessRow[] = current.processes ?? [];
    const every = [...new Set(rows.flatMap((r) => r.threads))];
    const weightOf = new Map<string, number>();
    for (const r of rows) if (r.threads.length === 1) weightOf.set(r.threads[0], r.samples);
    const shown = new Set(current.shownThreads ?? every);
    const whole = current.allWeight ?? current.totalWeight;
    const shownWeight = [...shown].reduce((sum, t) => sum + (weightOf.get(t) ?? 0), 0);
    const ask = (next: Set<string>) => choose(next.size === every.length ? null : every.filter((t) => next.has(t)));

    clear(head);
    head.append(
      h('span', { class: 'proc-title' }, s.procTitle),
      h(
        'span',
        {
          class: 'proc-state',
          attrs: {
            'data-shown': String(shown.size),
            'data-of': String(every.length),
            'data-share': String(whole > 0 ? shownWeight / whole : 0),
          },
        },
        shown.size === every.length ? fmt(s.procAll, every.length) : fmt(s.procSome, shown.size, every.length, pct(shownWeight, whole)),
      ),
    );
    clear(list);
    const all = h('button', { class: 'proc-all', attrs: { type: 'button' } }, s.procShowAll);
    all.disabled = shown.size === every.length;
    all.addEventListener('click', () => ask(new Set(every)));
    list.append(all);
    for (const r of rows) {
      const mine = r.threads;
      const box = h('input', { attrs: { type: 'checkbox' } });
      box.checked = mine.length > 0 && mine.every((t) => shown.has(t));
      box.indeterminate = !box.checked && mine.some((t) => shown.has(t));
      box.disabled = mine.length === 0;
      box.addEventListener('change', () => {
        const next = new Set(shown);
        for (const t of mine) {
          if (box.checked) next.add(t);
          else next.delete(t);
        }
        // Nothing shown is no view: the last one stays.
        if (next.size === 0) {
          box.checked = true;
          return;
        }
        ask(next);
      });
      const name = h(
        'label',
        { class: 'proc-name' },
        box,
        r.pid !== undefined && !r.thread ? h('span', { class: 'proc-pid' }, String(r.pid)) : null,
        r.label,
      );
      if (r.startedAt && r.pid !== undefined) name.title = fmt(s.procStarted, r.pid, new Date(r.startedAt).toLocaleTimeString());
      const only = h('button', { class: 'proc-only', attrs: { type: 'button', title: s.procOnlyHint } }, s.procOnly);
      only.hidden = mine.length === 0 || (shown.size === mine.length && mine.every((t) => shown.has(t)));
      only.addEventListener('click', () => ask(new Set(mine)));
      const share = h('span', { class: 'proc-share num' }, mine.length ? pct(r.samples, whole) : s.procNoSamples);
      if (r.waitedIdle !== undefined) {
        const waited = h('span', { class: 'proc-waited' }, fmt(s.procWaited, pct(r.waitedIdle, 1)));
        name.append(' ', waited);
      } else if (r.idle !== undefined) name.append(' ', h('span', { class: 'proc-waited proc-idle' }, fmt(s.procIdle, pct(r.idle, 1))));
      const row = h(
        'div',
        {
          class: r.thread ? 'proc-row proc-thread' : 'proc-row',
          attrs: {
            'data-pid': r.pid === undefined ? '' : String(r.pid),
            'data-share': String(whole > 0 ? r.samples / whole : 0),
            'data-shown': String(box.checked),
          },
        },
        name,
        share,
        only,
      );
      row.style.paddingLeft = `${Math.min(r.depth, 40) * 16}px`;
      list.append(row);
    }
  };
  render();
  return {
    el,
    update(next) {
      current = { ...next, processes: next.processes ?? current.processes, allWeight: next.allWeight ?? current.allWeight };
      render();
    },
  };
}
