import type { FindingInfo } from '../src/core/viewer/protocol';
import { h, pct } from './dom';
import type { Strings } from './tree';

/** The Summary's Findings list: each entry says what is wrong and where; its button selects it in the flame graph. */
export function renderFindings(el: HTMLElement, findings: FindingInfo[], s: Strings, reveal?: (frame: number) => void): void {
  el.append(h('h2', null, s.findings));
  if (!findings.length) {
    el.append(h('p', { class: 'dim findings-none' }, s.noFindings));
    return;
  }
  const items = findings.map((f) => {
    const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '';
    const li = h(
      'li',
      { class: `finding ${f.severity}`, attrs: { 'data-rule': f.rule, 'data-frame': String(f.frame) } },
      h('span', { class: 'finding-severity' }, s[`severity.${f.severity}`] ?? f.severity),
      ' ',
      h('span', { class: 'num' }, pct(f.share, 1)),
      ' ',
      h('span', { class: 'finding-message' }, f.message),
      where ? h('div', { class: 'dim finding-where' }, where) : null,
    );
    if (reveal && f.frame >= 0) {
      li.title = s.showFinding;
      li.tabIndex = 0;
      li.style.cursor = 'pointer';
      li.addEventListener('click', () => reveal(f.frame));
      li.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          reveal(f.frame);
        }
      });
    }
    return li;
  });
  el.append(h('ul', { class: 'findings' }, ...items));
}
