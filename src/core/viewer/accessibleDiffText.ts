// The comparison's Accessible View: the two profiles and the biggest changes as plain text, built on the host.
import * as l10n from '@vscode/l10n';
import { printable } from '../chars';
import { capped } from '../model';
import { formatWeight } from '../model/units';
import type { DiffSide } from './protocol';
import { changeRows, type DiffSession } from './diffSession';

/** The rows the text lists: the table shows more, the text keeps what a reader takes in. */
const ROWS = 30;

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

function sideLine(name: string, s: DiffSide): string {
  const weight = formatWeight(s.totalWeight, s.unit ?? 'samples');
  const range = s.range ? ` · ${l10n.t('time range {0}–{1} ms', s.range.from.toFixed(1), s.range.to.toFixed(1))}` : '';
  return `${name}: ${printable(s.label)} (${s.format}, ${(s.unit ?? 'samples') === 'samples' ? l10n.t('{0} samples', weight) : weight}${range})`;
}

/** The before and after profiles, then the functions whose share of the samples changed most, with both shares. */
export function accessibleDiffText(session: DiffSession): { title: string; text: string } {
  const { before, after } = session.sides;
  const rows = changeRows(session.changes, session.diff.frames, ROWS).map((c, i) => {
    const where = c.file ? ` ${c.file}${c.line ? `:${c.line}` : ''}` : '';
    const name = printable(capped(`${c.name || '(anonymous)'}${where}`));
    return `${i + 1}. ${l10n.t('{0}: {1} → {2} ({3} points)', name, pct(c.before), pct(c.after), points(c.delta))}`;
  });
  const text = [
    l10n.t('Node Flame, accessible view of the comparison {0} → {1}', printable(before.label), printable(after.label)),
    sideLine(l10n.t('Before'), before),
    sideLine(l10n.t('After'), after),
    '',
    l10n.t('Biggest changes (share of the samples with the function on the stack, before → after):'),
    ...(rows.length ? rows : [l10n.t('No function changed its share.')]),
    '',
  ].join('\n');
  return { title: l10n.t('{0} → {1} (accessible view)', printable(before.label), printable(after.label)), text };
}
