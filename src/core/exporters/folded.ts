import * as l10n from '@vscode/l10n';
import { ProfileError, type Frame, type Profile } from '../model';
import { MAX_FOLDED_CHARS } from './stackBudget';
import { sampleScale } from './json';

/** A frame as one folded-stack field: no `;` or line breaks, kernel frames marked like inferno does. */
export function foldedLabel(f: Frame): string {
  let s = f.name;
  if (f.file) s += ` ${f.file}${f.line ? `:${f.line}` : ''}${f.line && f.column ? `:${f.column}` : ''}`;
  else if (f.lib && f.category !== 'kernel') s += ` (${f.lib})`;
  s = s.replace(/[;\r\n]/g, ' ');
  return f.category === 'kernel' ? `${s}_[k]` : s;
}

/**
 * One line per distinct stack, root-most first; samples with no frame at all become `[unknown]`. Weights are
 * sample counts (perf's periods turned back into samples, rounded so they add up to the sample count) unless
 * `weights: 'period'` asks for the profile's own weights.
 */
export function toFolded(profile: Profile, opts: { weights?: 'samples' | 'period' } = {}): string {
  const labels = profile.frames.map(foldedLabel);
  const out: string[] = [];
  const scale = opts.weights === 'period' ? 1 : sampleScale(profile);
  let sum = 0;
  let given = 0;
  // Long names on deep stacks (a 14 MB name 4 000 deep) outgrow any string before the frame count does.
  let chars = 0;
  profile.tree.forEachStack((stack, self) => {
    let w = self;
    if (scale !== 1) {
      // Rounded as a running total, so the counts add up to the profile's sample count.
      sum += self * scale;
      w = Math.round(sum) - given;
      given += w;
      if (w <= 0) return;
    }
    for (const id of stack) chars += labels[id].length + 1;
    if (chars > MAX_FOLDED_CHARS)
      throw new ProfileError(
        l10n.t('its stacks write more than {0} characters of folded text; export json, cpuprofile or html instead', MAX_FOLDED_CHARS),
        profile.meta.source,
      );
    out.push(`${stack.length ? stack.map((id) => labels[id]).join(';') : '[unknown]'} ${w}`);
  });
  return out.length ? out.join('\n') + '\n' : '';
}
