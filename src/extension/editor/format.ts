import * as vscode from 'vscode';

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
