// The corpus's table (program × mode), printed by the corpus test and by `npm run bench corpus`.
import { agreement, type Agreement } from './agreement';
import type { CorpusResult } from './corpusRun';

export interface TableRow {
  result: CorpusResult;
  /** Against cpu-prof of the same program; absent for cpu-prof and heap rows. */
  agreement?: Agreement;
}

/** Each program's rows with their agreement against that program's cpu-prof row. */
export function withAgreement(results: readonly CorpusResult[]): TableRow[] {
  return results.map((result) => {
    const cpu = results.find((r) => r.program === result.program && r.mode === 'cpu-prof');
    const other = result.mode === 'prof' || result.mode === 'perf';
    return { result, agreement: other && cpu?.self && result.self ? agreement(cpu.self, result.self) : undefined };
  });
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

export function formatTable(rows: readonly TableRow[]): string {
  const head = ['program', 'mode', 'processes', 'threads', 'hot found', 'wrong lines', 'dup rows', 'warn hidden', 'agreement', 's'];
  const body = rows.map(({ result: r, agreement: a }) => {
    return [
      r.program,
      r.mode,
      `${r.processesFound}/${r.processesRan}`,
      `${r.threadsFound}/${r.threadsRan}`,
      r.missingHot.length ? `missing ${r.missingHot.join(',')}` : 'all',
      String(r.wrongLines.length),
      String(r.duplicates.length),
      String(r.warningsNotShown.length),
      a ? `${a.agree}/${a.rows.length} (${pct(a.ratio)}), at line ${a.found}/${a.rows.length}` : r.mode === 'cpu-prof' ? 'oracle' : '',
      (r.ms / 1000).toFixed(1),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** Per hot function of cpu-prof: its share there and in the mode, for the rows that disagree. */
export function formatDisagreements(rows: readonly TableRow[]): string {
  const out: string[] = [];
  for (const { result: r, agreement: a } of rows)
    for (const x of a?.rows ?? [])
      if (!x.agrees)
        out.push(
          `${r.program} ${r.mode}: ${x.name.slice(0, 40)} ${x.key.replace(/.*\/node_modules\//, '')} cpu-prof ${pct(x.cpuShare)}, ` +
            `${r.mode} ${x.found ? pct(x.otherShare) : 'not at this line'} (of JavaScript samples)`,
        );
  return out.join('\n');
}
