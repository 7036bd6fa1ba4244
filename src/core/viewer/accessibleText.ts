// The viewer's Accessible View: what the page shows as plain text a screen reader reads line by line and anyone can
// copy. Built on the host from the session (the view the page shows: its toggles, transforms, range and processes).
import * as l10n from '@vscode/l10n';
import { printable } from '../chars';
import { bottomUp, capped, frameLabel, functionStats, type CallTree, type Frame } from '../model';
import { isThreadLevel } from '../model/threadLevel';
import { hotPaths } from '../exporters/markdown';
import { formatWeight } from '../model/units';
import type { TreeKind } from './protocol';
import type { ViewerSession } from './viewerSession';

/** A branch below this share of all samples is left out of the tree: the text stays a page, not the whole profile. */
export const HOT_SHARE = 0.05;
/** At most this many lines of tree, and of top functions. */
const MAX_TREE_LINES = 300;
const TOP_FUNCTIONS = 15;
const HOT_PATHS = 5;
/** Deeper than this the tree is cut with a `…` line (recursion). */
const MAX_DEPTH = 120;

const pct = (x: number, of: number) => `${of > 0 ? ((100 * x) / of).toFixed(1) : '0.0'} %`;
const say = (f: Frame | undefined) => (f ? printable(capped(frameLabel(f))) : l10n.t('(unknown frame)'));

/**
 * The tree's branches of at least HOT_SHARE, heaviest first, each line indented by its depth. A bottom-up tree's
 * node weighs the samples of its leaf function called through that path: one share, no self.
 */
function treeLines(tree: CallTree, frames: readonly Frame[], bottom: boolean): string[] {
  const total = tree.total;
  const all = tree.weight;
  const out: string[] = [];
  // Depth-first with an explicit stack: a deep recursion would overflow the call stack.
  const stack: [node: number, depth: number][] = [[0, -1]];
  while (stack.length && out.length < MAX_TREE_LINES) {
    const [node, depth] = stack.pop()!;
    if (node !== 0) {
      const name = say(frames[tree.frame[node]]);
      const line = bottom
        ? l10n.t('{0}: {1} of the samples', name, pct(total[node], all))
        : l10n.t('{0}: total {1}, self {2}', name, pct(total[node], all), pct(tree.self[node], all));
      out.push(`${'  '.repeat(depth)}${line}`);
      if (depth >= MAX_DEPTH) {
        out.push(`${'  '.repeat(depth + 1)}…`);
        continue;
      }
    }
    const kids = tree
      .children(node)
      .filter((c) => total[c] >= HOT_SHARE * all)
      .sort((a, b) => total[a] - total[b]);
    for (const c of kids) stack.push([c, depth + 1]);
  }
  if (stack.length) out.push('…');
  return out;
}

function findingLines(session: ViewerSession): string[] {
  const found = session.findings ?? [];
  if (!found.length) return [l10n.t('No findings: nothing in this profile crossed a rule threshold.')];
  return found.map((f, i) => {
    const where = f.file ? ` ${f.file}${f.line ? `:${f.line}` : ''}` : '';
    const severity = f.severity === 'warning' ? l10n.t('warning') : l10n.t('info');
    return printable(`${i + 1}. ${severity} ${f.rule}${where} (${pct(f.share, 1)}): ${f.message}`);
  });
}

function topFunctionLines(tree: CallTree, frames: readonly Frame[]): string[] {
  const all = tree.weight;
  return functionStats(tree, frames.length)
    .filter((s) => frames[s.frame] && !isThreadLevel(frames[s.frame]) && s.self > 0)
    .sort((a, b) => b.self - a.self || b.total - a.total)
    .slice(0, TOP_FUNCTIONS)
    .map((s, i) => `${i + 1}. ${l10n.t('{0}: self {1}, total {2}', say(frames[s.frame]), pct(s.self, all), pct(s.total, all))}`);
}

/**
 * The text of the view the page shows: a heading with the profile's facts, the hot branches of the call tree (or
 * of the bottom-up tree) as an indented tree with each frame's total and self share, the findings, the top functions.
 */
export function accessibleText(session: ViewerSession, kind: TreeKind = 'top'): string {
  const view = session.currentView();
  const tree = kind === 'top' ? view.tree : bottomUp(view.tree);
  const shown = session.shownProfile();
  const unit = shown.meta.unit ?? 'samples';
  const facts = [
    shown.format,
    shown.meta.durationMs ? l10n.t('{0} ms', shown.meta.durationMs.toFixed(0)) : undefined,
    unit === 'samples' ? l10n.t('{0} samples', formatWeight(tree.weight, unit)) : formatWeight(tree.weight, unit),
    session.range ? l10n.t('time range {0}–{1} ms', session.range.from.toFixed(1), session.range.to.toFixed(1)) : undefined,
    session.transforms.length ? l10n.t('{0} call-tree transforms applied', String(session.transforms.length)) : undefined,
  ].filter(Boolean);
  const treeTitle =
    kind === 'top'
      ? l10n.t('Hot path (call tree; branches of at least {0} of the samples, heaviest first):', pct(HOT_SHARE, 1))
      : l10n.t('Hot functions and their callers (bottom-up tree; branches of at least {0} of the samples):', pct(HOT_SHARE, 1));
  // Where the time goes in one line each (the user's code, the call it makes, the leaf), as the Markdown report says it.
  const paths = hotPaths(shown, HOT_PATHS).map((p, i) => `${i + 1}. ${pct(p.share, 1)}: ${p.frames.map(say).join(' → ')}`);
  return [
    l10n.t('Node Flame, accessible view of {0}', printable(session.label)),
    facts.join(' · '),
    '',
    l10n.t('Hot paths (share of the samples: outermost user frame → deepest user frame → its call → heaviest leaf):'),
    ...paths,
    '',
    treeTitle,
    ...treeLines(tree, view.frames, kind === 'bottom'),
    '',
    l10n.t('Findings:'),
    ...findingLines(session),
    '',
    l10n.t('Top functions by self weight:'),
    ...topFunctionLines(view.tree, view.frames),
    '',
  ].join('\n');
}

/** The Accessible View's title (the editor's tab). */
export function accessibleTitle(session: ViewerSession): string {
  return l10n.t('{0} (accessible view)', printable(session.label));
}
