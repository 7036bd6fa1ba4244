import * as l10n from '@vscode/l10n';
import { printable } from '../chars';
import {
  bottomUp,
  capped,
  categoryWeights,
  frameLabel,
  functionRows,
  tickSummary,
  type Category,
  type Frame,
  type Profile,
} from '../model';
import { findFindings } from '../findings';
import { requestsSummary } from '../model/requests';
import { processWeights } from './json';
import { isThreadLevel } from '../model/threadLevel';

const TIER_MARK: Record<string, string> = { interpreted: '~', sparkplug: '^', maglev: '+', turbofan: '*' };
const JS: ReadonlySet<Category> = new Set(['app', 'dependency', 'node', 'v8', 'eval', 'wasm']);
/** Like the tick processor: callers below this share of their parent are left out of the heavy profile. */
const HEAVY_THRESHOLD = 0.01;
/** Callers deeper than this are cut with a `…` line. */
const HEAVY_MAX_DEPTH = 200;

/** Weights as ticks: perf weighs samples by period, so its weights are scaled back to sample counts. */
let tickScale = 1;
const ticks = (x: number) => {
  const v = x * tickScale;
  return (Number.isInteger(v) ? String(v) : tickScale !== 1 ? String(Math.round(v)) : v.toFixed(1)).padStart(7);
};
/** The weights column's heading: ticks, or the unit of a pprof sample type (ms, bytes, objects). */
let unitHead = '   ticks';
const pct = (x: number, of: number) => (of > 0 ? `${((100 * x) / of).toFixed(1)}%` : '').padStart(6);

function label(f: Frame): string {
  const mark = f.tier ? (TIER_MARK[f.tier] ?? '') : '';
  const lib = !f.file && f.lib && f.category !== 'shared-lib' ? ` [${f.lib}]` : '';
  return printable(capped(`${mark}${frameLabel(f)}${lib}`));
}

/** `push(...rows)` passes every row as an argument and overflows the stack on big profiles. */
function append(out: string[], rows: readonly string[]): void {
  for (const r of rows) out.push(r);
}

function table(title: string, rows: { w: number; name: string }[], all: number, nonlib: number | null): string[] {
  const out = ['', ` [${title}]:`, `${unitHead}  total  nonlib   name`];
  for (const r of rows) out.push(`${ticks(r.w)} ${pct(r.w, all)} ${nonlib === null ? '      ' : pct(r.w, nonlib)}  ${r.name}`);
  return out;
}

/** The findings, before the tick processor's tables, with a blank line after them; nothing when there are none. */
function findingLines(profile: Profile): string[] {
  const found = findFindings(profile);
  if (!found.length) return [];
  const out = [` [${l10n.t('Findings')}]:`];
  for (const f of found) {
    const where = f.file ? ` ${f.file}${f.line ? `:${f.line}` : ''}` : '';
    out.push(
      printable(
        `  ${f.severity === 'warning' ? l10n.t('warning') : l10n.t('info')} ${f.rule}${where} (${(f.share * 100).toFixed(1)}%${f.pid !== undefined ? ' ' + l10n.t('of pid {0}', String(f.pid)) : ''})`,
      ),
      printable(`    ${f.message}`),
    );
  }
  out.push('');
  return out;
}

/** Text laid out like `node --prof-process` output, from any format's profile. */
export function toText(profile: Profile, opts: { top?: number; source?: string } = {}): string {
  const t = profile.tree;
  const all = t.weight;
  tickScale = profile.meta.sampleCount && all > 0 ? profile.meta.sampleCount / all : 1;
  const top = opts.top ?? Infinity;
  const cats = categoryWeights(profile);
  const sum = tickSummary(cats);
  const nonlib = all - sum.sharedLibraries;
  const source = printable(opts.source ?? profile.meta.source ?? profile.format);
  const out = findingLines(profile);
  const m = profile.meta;
  // --prof-process's header counts ticks; a profile weighing bytes, ms or objects says so instead.
  if (m.unit && m.unit !== 'samples')
    out.push(l10n.t('Profile of {0}: {1} {2} in all, {3} unaccounted.', source, ticks(all).trim(), m.unit, ticks(sum.unaccounted).trim()));
  else
    out.push(
      l10n.t(
        'Statistical profiling result from {0}, ({1} ticks, {2} unaccounted, 0 excluded).',
        source,
        ticks(all).trim(),
        ticks(sum.unaccounted).trim(),
      ),
    );
  unitHead = (m.unit && m.unit !== 'samples' ? m.unit : 'ticks').padStart(8);
  if (m.sampleTypes)
    out.push(
      l10n.t(
        'Unit: {0}; sample type "{1}" (the file has: {2}).',
        m.unit ?? 'samples',
        m.sampleType ?? '',
        m.sampleTypes.map((x) => x.type).join(', '),
      ),
    );
  for (const l of m.labels ?? [])
    out.push(
      l10n.t(
        'Label "{0}": {1} values ({2})',
        printable(l.key),
        l.distinct,
        l.values
          .slice(0, 5)
          .map((v) => printable(v.value))
          .join(', ') + (l.distinct > 5 ? ', …' : ''),
      ),
    );

  // One row per function, its tiers merged (the JSON report's rows, functionRows.ts).
  const stats = functionRows(profile)
    .map((s, order) => ({ ...s, order }))
    .filter((s) => s.self > 0 && !isThreadLevel(s.frame));
  stats.sort((a, b) => b.self - a.self || a.order - b.order);
  const libs = new Map<string, number>();
  for (const s of stats) {
    const f = s.frame;
    if (f.category === 'shared-lib') libs.set(f.lib ?? f.name, (libs.get(f.lib ?? f.name) ?? 0) + s.self);
  }
  const libRows = [...libs].sort((a, b) => b[1] - a[1]).map(([name, w]) => ({ w, name: printable(name) }));
  const rowsOf = (pred: (f: Frame) => boolean) =>
    stats
      .filter((s) => pred(s.frame))
      .slice(0, top)
      .map((s) => ({ w: s.self, name: label(s.frame) }));

  append(out, table('Shared libraries', libRows, all, null));
  append(
    out,
    table(
      'JavaScript',
      rowsOf((f) => JS.has(f.category)),
      all,
      nonlib,
    ),
  );
  append(
    out,
    table(
      'C++',
      rowsOf((f) => f.category === 'native'),
      all,
      nonlib,
    ),
  );

  const summary: { w: number; name: string; lib?: boolean }[] = [
    { w: sum.javascript, name: 'JavaScript' },
    { w: sum.cpp, name: 'C++' },
    { w: sum.gc, name: 'GC' },
    { w: sum.sharedLibraries, name: 'Shared libraries', lib: true },
    { w: sum.unaccounted, name: 'Unaccounted', lib: true },
  ];
  // Categories the tick processor has no line for, shown only when present.
  for (const [c, name] of [
    ['kernel', 'Kernel'],
    ['idle', 'Idle'],
    ['program', 'Program'],
  ] as const) {
    if (cats[c] > 0) summary.push({ w: cats[c], name, lib: true });
  }
  out.push('', ' [Summary]:', `${unitHead}  total  nonlib   name`);
  for (const r of summary) out.push(`${ticks(r.w)} ${pct(r.w, all)} ${r.lib ? '      ' : pct(r.w, nonlib)}  ${r.name}`);

  // A run folder read as one: which process the ticks came from.
  if (profile.meta.processes?.length) {
    const byPid = processWeights(profile);
    out.push('', ' [Processes]:', '   ticks  total      pid     ppid  command');
    for (const p of profile.meta.processes) {
      const w = byPid.get(p.pid) || p.waited?.samples || 0;
      const left = p.waited && !byPid.get(p.pid);
      const note = p.waited
        ? '  ' + l10n.t('(waited: {0} idle{1})', `${(p.waited.idle * 100).toFixed(1)}%`, left ? l10n.t(', left out') : '')
        : '';
      out.push(
        `${ticks(w)} ${left ? '      -' : pct(w, all)} ${String(p.pid).padStart(8)} ${String(p.ppid ?? '-').padStart(8)}  ${printable(p.command)}${note}`,
      );
    }
  }

  append(out, requestLines(profile));

  out.push(
    '',
    ' [Bottom up (heavy) profile]:',
    '  ' + l10n.t('Note: percentage shows a share of a particular caller in the total'),
    '  ' + l10n.t('amount of its parent calls.'),
    '  ' + l10n.t('Callers occupying less than {0}% are not shown.', (HEAVY_THRESHOLD * 100).toFixed(1)),
    '',
    `${unitHead} parent  name`,
  );
  append(out, heavy(profile, top));
  return out.join('\n') + '\n';
}

function heavy(profile: Profile, top: number): string[] {
  const bu = bottomUp(profile.tree);
  const total = bu.total;
  const all = total[0];
  const out: string[] = [];
  const byWeight = (nodes: number[]) => nodes.sort((a, b) => total[b] - total[a] || a - b);
  const roots = byWeight(bu.children(0))
    .filter((n) => total[n] / (all || 1) >= HEAVY_THRESHOLD)
    .slice(0, top);
  // Explicit stack: recursive programs give heavy trees as deep as their call stacks.
  const stack: { node: number; depth: number }[] = roots.reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    const parent = depth === 0 ? all : total[bu.parent[node]];
    out.push(`${ticks(total[node])} ${pct(total[node], parent)}  ${'  '.repeat(depth)}${label(profile.frames[bu.frame[node]])}`);
    const kids = byWeight(bu.children(node)).filter((c) => total[c] / (total[node] || 1) >= HEAVY_THRESHOLD);
    // Indentation grows with depth, so a runaway recursion would make the text quadratic in it.
    if (depth + 1 >= HEAVY_MAX_DEPTH && kids.length) {
      out.push(`${' '.repeat(16)}${'  '.repeat(depth + 1)}…`);
      continue;
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i], depth: depth + 1 });
  }
  return out;
}

/** A run that recorded HTTP requests: per route the count, latency percentiles and the CPU its requests took. */
function requestLines(profile: Profile): string[] {
  const r = requestsSummary(profile, 0);
  if (!r) return [];
  const ms = (x: number) => x.toFixed(1).padStart(8);
  const out = [
    '',
    ' [Requests]:',
    '  ' +
      l10n.t(
        '{0} requests; latency p50 {1} ms, p90 {2} ms, p99 {3} ms',
        r.all.count,
        r.all.p50.toFixed(1),
        r.all.p90.toFixed(1),
        r.all.p99.toFixed(1),
      ),
    `   count      p50      p95      p99  ${l10n.t('CPU ms/req').padStart(10)}  total   route`,
  ];
  for (const s of r.routes)
    out.push(
      `${String(s.count).padStart(8)} ${ms(s.p50)} ${ms(s.p95)} ${ms(s.p99)}  ${s.cpuMsPerRequest.toFixed(2).padStart(10)} ${`${(100 * s.share).toFixed(1)}%`.padStart(6)}   ${printable(s.key)}${s.aborted ? `  (${l10n.t('{0} aborted by the client', s.aborted)})` : ''}`,
    );
  // An aborted request's latency is only its time until the client gave up: the percentiles are lower bounds then.
  if (r.routes.some((s) => s.aborted))
    out.push('  ' + l10n.t('aborted requests count with their time until the client closed the connection'));
  if (profile.format === 'v8log')
    out.push(
      '  ' +
        l10n.t(
          "A V8 tick log stamps each tick when V8's profiler thread writes it, not when it was sampled: on a busy machine a short request can hold ticks of the one before it. cpu-prof and perf runs stamp samples when they are taken.",
        ),
    );
  return out;
}
