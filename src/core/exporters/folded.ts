import type { Frame, Profile } from '../model';
import { checkStackFrames } from './stackBudget';

/** A frame as one folded-stack field: no `;` or line breaks, kernel frames marked like inferno does. */
export function foldedLabel(f: Frame): string {
  let s = f.name;
  if (f.file) s += ` ${f.file}${f.line ? `:${f.line}` : ''}${f.line && f.column ? `:${f.column}` : ''}`;
  else if (f.lib && f.category !== 'kernel') s += ` (${f.lib})`;
  s = s.replace(/[;\r\n]/g, ' ');
  return f.category === 'kernel' ? `${s}_[k]` : s;
}

/** One line per distinct stack, root-most first; samples with no frame at all become `[unknown]`. */
export function toFolded(profile: Profile): string {
  checkStackFrames(profile, 'folded');
  const labels = profile.frames.map(foldedLabel);
  const out: string[] = [];
  profile.tree.forEachStack((stack, self) => {
    out.push(`${stack.length ? stack.map((id) => labels[id]).join(';') : '[unknown]'} ${self}`);
  });
  return out.length ? out.join('\n') + '\n' : '';
}
