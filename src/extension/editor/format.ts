import * as vscode from 'vscode';
import { formatWeight } from '../../core/model/units';
import type { ProfileMeta } from '../../core/model/profile';

const percent = new Map<string, Intl.NumberFormat>();

/** `0.481` → "48.1%" in the UI language's number style. */
export function pct(share: number): string {
  const lang = vscode.env.language;
  let f = percent.get(lang);
  if (!f) {
    f = safeFormat(lang, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
    percent.set(lang, f);
  }
  return f.format(share);
}

/** Sample counts with grouping ("1,234"); perf weights can be fractional, so they are rounded. */
export function count(n: number): string {
  return safeFormat(vscode.env.language, { maximumFractionDigits: 0 }).format(Math.round(n));
}

function safeFormat(lang: string, opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(lang, opts);
  } catch {
    return new Intl.NumberFormat('en', opts);
  }
}

/** A function's display name; V8 leaves anonymous functions unnamed. */
export function functionName(name: string): string {
  return name && name !== '(anonymous)' ? name : vscode.l10n.t('(anonymous function)');
}

/** A weight in the profile's unit: "1,234 samples", "12.4 MB", "35.2 ms", "1,234 objects". */
export function amount(n: number, meta: Pick<ProfileMeta, 'unit'>): string {
  switch (meta.unit ?? 'samples') {
    case 'bytes':
    case 'ms':
      return formatWeight(n, meta.unit, vscode.env.language);
    case 'objects':
      return vscode.l10n.t('{0} objects', count(n));
    default:
      return vscode.l10n.t('{0} samples', count(n));
  }
}

/** "35.0% of allocated bytes": a share said with what it is a share of. */
export function shareOf(share: number, meta: Pick<ProfileMeta, 'unit' | 'sampleType'>): string {
  const p = pct(share);
  switch (meta.unit ?? 'samples') {
    case 'bytes':
      if (meta.sampleType === 'allocated') return vscode.l10n.t('{0} of allocated bytes', p);
      if (meta.sampleType === 'live') return vscode.l10n.t('{0} of live bytes', p);
      return vscode.l10n.t('{0} of bytes', p);
    case 'ms':
      return vscode.l10n.t('{0} of time', p);
    case 'objects':
      return vscode.l10n.t('{0} of objects', p);
    default:
      return vscode.l10n.t('{0} of samples', p);
  }
}
