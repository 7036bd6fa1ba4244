import * as l10n from '@vscode/l10n';
import { printable } from '../chars';
import { capped, frameLabel, type Frame, type Profile } from '../model';
import { toJsonReport } from './json';
import { isThreadLevel } from '../model/threadLevel';

/** How many hot paths and functions a pasted report keeps: a pull request or an assistant's prompt, not an archive. */
const PATHS = 5;
const FUNCTIONS = 15;

/** The source line a report quotes, when the reader can give it (the CLI reads the file; the editor, its documents). */
export type LineReader = (file: string, line: number) => string | undefined;

/** Markdown's emphasis, code, link, heading and HTML characters and table pipes escaped, so a name stays text in a cell. */
export const escapeMarkdown = (s: string): string => s.replace(/[\\`*_[\]<>|~#]/g, '\\$&');
/** A name or message from the profile as Markdown text: capped, control and direction characters shown as escapes. */
const md = (s: string) => escapeMarkdown(printable(capped(s)));
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const at = (file: string | null, line: number | null) => (file ? `${file}${line ? `:${line}` : ''}` : '');

/** A quoted source line, in a fence longer than any backtick run in it. */
function quote(read: LineReader | undefined, file: string | null | undefined, line: number | null | undefined): string[] {
  if (!read || !file || !line) return [];
  const text = read(file, line);
  if (text === undefined) return [];
  const one = capped(text.replace(/\r?\n.*/s, '')).trimEnd();
  const fence = '`'.repeat(Math.max(3, ...[...one.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return [`   ${fence}`, `   ${line} | ${one}`, `   ${fence}`];
}

/**
 * A report to paste into a pull request or hand to a coding assistant: findings first (with the line of the
 * user's code each points at), then the heaviest stacks with their file:line, then the heaviest functions.
 */
export function toMarkdown(profile: Profile, opts: { source?: string; readLine?: LineReader } = {}): string {
  const json = toJsonReport(profile, { top: FUNCTIONS });
  const out = [`### Node Flame: ${md(opts.source ?? profile.meta.source ?? profile.format)}`, ''];
  const facts = [
    l10n.t('{0} samples', String(Math.round(json.samples))),
    json.durationMs !== null ? l10n.t('{0} ms', json.durationMs.toFixed(0)) : undefined,
    profile.meta.mode ? l10n.t('mode {0}', profile.meta.mode) : undefined,
  ].filter(Boolean);
  out.push(facts.join(' · '), '');
  out.push(`#### ${l10n.t('Findings')}`, '');
  if (!json.findings.length) out.push(l10n.t('No finding.'), '');
  json.findings.forEach((f, i) => {
    const where = f.file ? ` — \`${md(at(f.file, f.line))}\`` : ` — ${l10n.t('no line of your code to point at')}`;
    out.push(
      `${i + 1}. **${f.severity}** \`${f.rule}\` (${pct(f.share)})${where}`,
      `   ${md(f.message)}`,
      ...quote(opts.readLine, f.file, f.line),
    );
  });
  if (json.findings.length) out.push('');
  out.push(`#### ${l10n.t('Hot paths')}`, '');
  hotPaths(profile, PATHS).forEach((p, i) => {
    const user = [...p.frames].reverse().find((f) => f.category === 'app' && isUser(f)) ?? [...p.frames].reverse().find(isUser);
    out.push(
      `${i + 1}. ${pct(p.share)} — ${p.frames.map((f) => md(frameLabel(f))).join(' → ')}`,
      ...quote(opts.readLine, user?.file, user?.line),
    );
  });
  out.push('', `#### ${l10n.t('Heaviest functions (self)')}`, '');
  out.push(`| ${l10n.t('Self')} | ${l10n.t('Total')} | ${l10n.t('Function')} | ${l10n.t('Location')} |`, '|--:|--:|---|---|');
  for (const f of json.functions)
    out.push(`| ${pct(f.self)} | ${pct(f.total)} | ${md(f.name || '(anonymous)')} | ${md(at(f.file, f.line))} |`);
  return out.join('\n') + '\n';
}

const isUser = (f: Frame | undefined) => !!f && (f.category === 'app' || f.category === 'dependency') && !!f.file && f.line > 0;

/**
 * Where the time goes, as the user reads it: samples grouped by the deepest frame of the user's code (a
 * package's when none) and the call it makes below, heaviest first. Each path shows the outermost user frame,
 * that frame, the call, and the heaviest leaf under it; Node's plumbing and the frames between are elided.
 */
export function hotPaths(profile: Profile, n: number): { share: number; frames: Frame[] }[] {
  const t = profile.tree;
  if (!(t.weight > 0)) return [];
  const groups = new Map<string, { w: number; frames: Frame[]; leafW: number }>();
  for (let i = 1; i < t.count; i++) {
    const self = t.self[i];
    const leaf = profile.frames[t.frame[i]];
    if (!(self > 0) || !leaf || leaf.category === 'idle') continue;
    const stack: Frame[] = [];
    for (let m = i; m > 0; m = t.parent[m]) {
      const f = profile.frames[t.frame[m]];
      if (f && !isThreadLevel(f)) stack.push(f);
    }
    stack.reverse();
    let deep = -1;
    for (let k = stack.length - 1; k >= 0 && deep < 0; k--) if (stack[k].category === 'app' && isUser(stack[k])) deep = k;
    for (let k = stack.length - 1; k >= 0 && deep < 0; k--) if (isUser(stack[k])) deep = k;
    const outer = deep < 0 ? -1 : stack.findIndex((f) => f.category === stack[deep].category && isUser(f));
    const picks = [outer, deep, deep + 1].filter((k, j, all) => k >= 0 && k < stack.length && all.indexOf(k) === j);
    const frames = picks.map((k) => stack[k]);
    const key = frames.map((f) => `${f.name}\0${f.file}\0${f.line}`).join('\n');
    const g = groups.get(key) ?? { w: 0, frames, leafW: 0 };
    g.w += self;
    // The leaf shown is the heaviest one under the group.
    if (self > g.leafW && (picks.length === 0 || stack.length - 1 > picks[picks.length - 1])) {
      g.leafW = self;
      g.frames = [...frames, leaf];
    } else if (self > g.leafW) g.leafW = self;
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.w - a.w)
    .slice(0, n)
    .map((g) => ({ share: g.w / t.weight, frames: g.frames }));
}
