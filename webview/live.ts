// A live run's bar: the badge (live, then final at exit), Mark (a marker on the Timeline now), Restart window (only
// what comes after now, marked too), the rolling window ("last N seconds") and Stop. It sits outside the page's UI, which a later 'init' rebuilds.
import type { HostMessage, WebviewMessage } from '../src/core/viewer/protocol';
import { fmt, h } from './dom';
import { select } from './controls';
import './live.css';

const WINDOWS = [0, 5, 10, 30, 60];

export function liveBar(
  strings: () => Record<string, string>,
  post: (m: WebviewMessage) => void,
): (m: Extract<HostMessage, { type: 'live' }>) => void {
  let bar: HTMLElement | undefined;
  let badge: HTMLElement;
  let updates = 0;
  let compare: HTMLElement;
  let win: ReturnType<typeof select>;
  let restarts: number[] = [];
  const build = (): HTMLElement => {
    const s = strings();
    badge = h('span', { class: 'live-badge', attrs: { role: 'status', 'aria-live': 'off' } }, s.liveBadge);
    const mark = h('vscode-button', { attrs: { secondary: '', title: s.liveMarkTitle, 'data-action': 'mark' } }, s.liveMark);
    mark.addEventListener('click', () => post({ type: 'mark' }));
    win = select(
      WINDOWS.map((sec) => [String(sec), sec ? fmt(s.liveWindowLast, sec) : s.liveWindowAll]),
      '0',
    );
    win.setAttribute('title', s.liveWindowTitle);
    win.setAttribute('aria-label', s.liveWindowTitle);
    win.dataset.action = 'window';
    // "since the restart" is offered once Restart window was pressed.
    const since = h('vscode-option', { attrs: { value: 'since', hidden: '' } }, s.liveWindowSince);
    win.append(since);
    win.addEventListener('change', () => {
      if (win.value === 'since') return post({ type: 'liveWindow', seconds: null, since: true });
      const sec = Number(win.value);
      post({ type: 'liveWindow', seconds: sec > 0 ? sec : null });
    });
    const restart = h(
      'vscode-button',
      { attrs: { secondary: '', title: s.liveRestartTitle, 'data-action': 'restart-window' } },
      s.liveRestart,
    );
    restart.addEventListener('click', () => {
      since.removeAttribute('hidden');
      win.value = 'since';
      post({ type: 'liveWindow', seconds: null, restart: true });
    });
    const stop = h('vscode-button', { attrs: { icon: 'debug-stop', secondary: '', 'data-action': 'stop' } }, s.liveStop);
    stop.addEventListener('click', () => {
      stop.setAttribute('disabled', '');
      post({ type: 'stopRun' });
    });
    compare = h('vscode-button', { attrs: { secondary: '', 'data-action': 'compare-restart', hidden: '' } }, s.liveCompareRestart);
    compare.addEventListener('click', () => {
      // Before the last restart (from the one before it, or the start) against after it.
      const [prev, last] = restarts.length > 1 ? restarts.slice(-2) : [0, restarts[0]];
      post({ type: 'compareRanges', before: { from: prev, to: last }, after: { from: last, to: Number.MAX_VALUE } });
    });
    return h(
      'div',
      { class: 'live-bar', attrs: { 'data-live': 'true' } },
      badge,
      h('span', { class: 'live-controls' }, mark, restart, win, stop),
      compare,
    );
  };
  return (m) => {
    bar ??= document.body.insertBefore(build(), document.body.firstChild);
    const s = strings();
    updates++;
    bar.dataset.live = String(m.live);
    badge.textContent = m.live ? (m.marks ? `${s.liveBadge} · ${fmt(s.liveMarks, m.marks)}` : s.liveBadge) : s.liveFinal;
    restarts = m.restarts ?? [];
    compare.toggleAttribute('hidden', !restarts.length);
    win.toggleAttribute('hidden', !!m.untimed);
    document.body.dataset.live = String(m.live);
    document.body.dataset.liveUpdates = String(updates);
  };
}
