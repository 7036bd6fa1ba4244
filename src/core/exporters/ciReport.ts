import { isAbsolute, relative, sep } from 'node:path';
import * as l10n from '@vscode/l10n';
import { functionKey, gateShares, oneLine, type Frame, type FunctionChange, type Profile } from '../model';
import { escapeMarkdown } from './markdown';

/** A function whose self share grew, and where in the repository to say so. */
export interface Regression {
  change: FunctionChange;
  before: number;
  after: number;
  /** Percentage points. */
  growth: number;
  /** Relative to the folder the command runs in, `/`-separated; absent when no frame of the stacks is in it. */
  file?: string;
  line?: number;
}

const points = (x: number) => (x * 100).toFixed(1);
const share = (x: number) => `${(x * 100).toFixed(1)}%`;

/** `file` relative to `cwd` when it lies inside it (as GitHub names files in annotations). */
function inside(file: string, cwd: string): string | undefined {
  if (!file || !isAbsolute(file)) return undefined;
  const r = relative(cwd, file);
  if (!r || r.startsWith('..') || isAbsolute(r)) return undefined;
  return r.split(sep).join('/');
}

/**
 * Where a change shows in the code: the function itself when its file is in the repository, else its
 * heaviest caller that is (the handler calling `pbkdf2Sync`), at the line of that caller that ran most
 * (the call, when the profile has per-line counts), else where the caller starts.
 */
function siteOf(after: Profile, c: FunctionChange, cwd: string): { file: string; line: number } | undefined {
  const own = inside(c.file, cwd);
  if (own && c.line > 0) return { file: own, line: c.line };
  const key = functionKey({ name: c.name, file: c.file, line: c.line, column: 0, category: c.category });
  const t = after.tree;
  const total = t.total;
  const callers = new Map<number, number>();
  for (let n = 1; n < t.count; n++) {
    if (functionKey(after.frames[t.frame[n]]) !== key) continue;
    for (let m = t.parent[n]; m > 0; m = t.parent[m]) {
      const f = after.frames[t.frame[m]];
      if (inside(f.file, cwd) === undefined) continue;
      callers.set(t.frame[m], (callers.get(t.frame[m]) ?? 0) + total[n]);
      break;
    }
  }
  const best = [...callers].sort((a, b) => b[1] - a[1])[0];
  if (!best) return undefined;
  const caller = after.frames[best[0]];
  return { file: inside(caller.file, cwd)!, line: hottestLineOf(after, caller) };
}

/** The line of `f`'s body that the most samples were running at (its start line when there are no line counts). */
function hottestLineOf(p: Profile, f: Frame): number {
  const lines = p.lineHits.get(f.file);
  if (!lines || f.line <= 0) return f.line;
  // The body runs from its start to the next function that starts later in the file.
  let end = Infinity;
  for (const g of p.frames) if (g.file === f.file && g.line > f.line && g.line < end) end = g.line;
  let best = f.line;
  let most = 0;
  for (const [line, h] of lines) {
    if (line >= f.line && line < end && h.total > most) {
      most = h.total;
      best = line;
    }
  }
  return best;
}

/** Both runs' total weights when they count the same thing (one format, one unit), for `gateShares`. */
export function comparableTotals(before: Profile, after: Profile): { before: number; after: number } | undefined {
  const same =
    before.format === after.format &&
    (before.meta.unit ?? 'samples') === (after.meta.unit ?? 'samples') &&
    before.meta.sampleType === after.meta.sampleType;
  return same ? { before: before.tree.weight, after: after.tree.weight } : undefined;
}

/** Functions whose self share grew by more than `limit` points (0..100), biggest growth first. */
export function findRegressions(changes: FunctionChange[], before: Profile, after: Profile, limit: number, cwd: string): Regression[] {
  const out: Regression[] = [];
  const totals = comparableTotals(before, after);
  for (const c of changes) {
    const g = gateShares(c, totals);
    if (g.growth * 100 <= limit) continue;
    out.push({ change: c, before: g.before, after: g.after, growth: g.growth * 100, ...siteOf(after, c, cwd) });
  }
  return out.sort((a, b) => b.growth - a.growth);
}

/** GitHub's workflow-command escaping: data keeps `%`, CR and LF from ending the command; property values also `:` and `,`. */
const ghData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProp = (s: string) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function message(r: Regression, limit: number): string {
  const c = r.change;
  const where = c.file ? ` (${c.file}${c.line ? ':' + c.line : ''})` : '';
  return oneLine(
    l10n.t(
      '{0}{1}: self share grew by {2} points, {3} → {4} (limit {5})',
      c.name,
      where,
      points(r.growth / 100),
      share(r.before),
      share(r.after),
      String(limit),
    ),
  );
}

/** `::warning file=…,line=…::…` lines that GitHub Actions shows on the pull request at those lines. */
export function toGithubAnnotations(regressions: Regression[], limit: number): string {
  const title = ghProp('Node Flame');
  return regressions
    .map((r) => {
      const at = r.file ? `file=${ghProp(r.file)},line=${r.line ?? 1},` : '';
      return `::warning ${at}title=${title}::${ghData(message(r, limit))}\n`;
    })
    .join('');
}

/** The one-line summary the text, Markdown and annotation outputs share. */
export function gateSummary(regressions: Regression[], limit: number): string {
  return regressions.length
    ? l10n.t('{0} function(s) grew by more than {1} points of self share', regressions.length, String(limit))
    : l10n.t('no function grew by more than {0} points of self share', String(limit));
}

/** Markdown's emphasis, code, link and HTML characters and table pipes, escaped so a name stays text in a cell; C++ names cut. */
const md = (s: string) => {
  const one = oneLine(s);
  return escapeMarkdown(one.length > 120 ? one.slice(0, 119) + '…' : one);
};

/**
 * A table for a pull-request comment: the functions whose self share grew most (those over the limit
 * first, marked), with where they live and their shares before and after.
 */
export function toMarkdown(
  changes: FunctionChange[],
  names: { before: string; after: string },
  totals: { before: number; after: number } | undefined,
  limit: number | undefined,
  top: number,
  regressions: Regression[],
): string {
  const rows = changes
    .map((c) => ({ c, g: gateShares(c, totals) }))
    .filter((x) => x.g.growth > 0)
    .sort((a, b) => b.g.growth - a.g.growth)
    .slice(0, top);
  const over = new Set(regressions.map((r) => r.change));
  const lines = [`### Node Flame: ${md(names.before)} → ${md(names.after)}`, ''];
  if (limit !== undefined) lines.push(`${regressions.length ? '❌' : '✅'} ${md(gateSummary(regressions, limit))}`, '');
  lines.push(
    `| ${[l10n.t('Function'), l10n.t('Location'), l10n.t('Self before'), l10n.t('Self after'), l10n.t('Change (points)')].join(' | ')} |`,
    '|---|---|--:|--:|--:|',
  );
  for (const { c, g } of rows) {
    const loc = c.file ? md(`${c.file}${c.line ? ':' + c.line : ''}`) : '';
    const delta = `+${points(g.growth)}`;
    lines.push(`| ${md(c.name)} | ${loc} | ${share(g.before)} | ${share(g.after)} | ${over.has(c) ? `**${delta}** ❌` : delta} |`);
  }
  if (!rows.length) lines.push(`| ${l10n.t('no function grew')} | | | | |`);
  return lines.join('\n') + '\n';
}
