import * as l10n from '@vscode/l10n';
import { ProfileError, type Frame, type Profile } from '../model';
import { checkStackFrames } from './stackBudget';

/** A frame as one folded-stack field: no `;` or line breaks, kernel frames marked like inferno does. */
export function foldedLabel(f: Frame): string {
  let s = f.name;
  if (f.file) s += ` ${f.file}${f.line ? `:${f.line}` : ''}${f.line && f.column ? `:${f.column}` : ''}`;
  else if (f.lib && f.category !== 'kernel') s += ` (${f.lib})`;
  s = s.replace(/[;\r\n]/g, ' ');
  return f.category === 'kernel' ? `${s}_[k]` : s;
}

/** The most characters a folded export writes (128 M): a file anyone could open, far below the string limit. */
const MAX_FOLDED_CHARS = 1 << 27;

/** One line per distinct stack, root-most first; samples with no frame at all become `[unknown]`. */
export function toFolded(profile: Profile): string {
  checkStackFrames(profile, 'folded');
  const labels = profile.frames.map(foldedLabel);
  const out: string[] = [];
  // Long names on deep stacks (a 14 MB name 4 000 deep) outgrow any string before the frame count does.
  let chars = 0;
  profile.tree.forEachStack((stack, self) => {
    for (const id of stack) chars += labels[id].length + 1;
    if (chars > MAX_FOLDED_CHARS)
      throw new ProfileError(
        l10n.t('its stacks write more than {0} characters of folded text; export json, cpuprofile or html instead', MAX_FOLDED_CHARS),
        profile.meta.source,
      );
    out.push(`${stack.length ? stack.map((id) => labels[id]).join(';') : '[unknown]'} ${self}`);
  });
  return out.length ? out.join('\n') + '\n' : '';
}
