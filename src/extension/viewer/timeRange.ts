import * as vscode from 'vscode';
import { applyTransforms } from '../../core/model/transforms';
import { OPEN_END } from '../../core/model/timeline';
import type { LoadedProfile } from '../services';

/** One time range of a loaded profile, as a profile of its own for a comparison (startup against the rest). */
export function rangeOf(p: LoadedProfile, r: { from: number; to: number }): LoadedProfile {
  const ms = (t: number) => (t < OPEN_END ? String(Math.round(t)) : '…');
  return {
    id: `${p.id}#${r.from}-${r.to}`,
    label: vscode.l10n.t('{0} ({1}–{2} ms)', p.label, ms(r.from), ms(r.to)),
    path: p.path,
    profile: applyTransforms(p.profile, [], { from: r.from, to: r.to }),
    range: { from: r.from, to: r.to },
  };
}
