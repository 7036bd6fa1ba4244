import { diffFunctions, diffTree, formatWeight, type FunctionChange, type Profile, type WeightUnit } from '../model';
import { printable } from '../chars';
import { escapeXml } from './svg';
import { homedir } from 'node:os';
import { sharePaths, shareRoot } from '../viewer/shareable';

export interface DiffJson {
  /** What beforeValue/afterValue/growth count, when both profiles count the same thing. */
  unit?: WeightUnit;
  changes: {
    name: string;
    file: string;
    line: number;
    before: number;
    after: number;
    delta: number;
    beforeValue?: number;
    afterValue?: number;
    growth?: number;
  }[];
}

/** The unit both profiles weigh in, or undefined when they differ (a share is all they have in common). */
export function sharedUnit(before: Profile, after: Profile): WeightUnit | undefined {
  const u = before.meta.unit ?? 'samples';
  return u === (after.meta.unit ?? 'samples') ? u : undefined;
}

const r4 = (x: number) => Math.round(x * 1e6) / 1e6;

export function diffToJson(changes: FunctionChange[], top = 50, unit?: WeightUnit): DiffJson {
  const value = (x: number) => Math.round(x * 1e3) / 1e3;
  return {
    ...(unit ? { unit } : {}),
    changes: changes.slice(0, top).map((c) => ({
      name: c.name,
      file: c.file,
      line: c.line,
      before: r4(c.before),
      after: r4(c.after),
      delta: r4(c.delta),
      ...(unit
        ? { beforeValue: value(c.beforeValue), afterValue: value(c.afterValue), growth: value(c.afterValue) - value(c.beforeValue) }
        : {}),
    })),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

export function diffToText(changes: FunctionChange[], before: string, after: string, top = 30, unit?: WeightUnit): string {
  // Bytes, ms and objects also say how much more or less there was: a leak grows in bytes while its share may not move.
  const grew = unit && unit !== 'samples';
  const lines = [
    ` Before: ${printable(before)}`,
    ` After:  ${printable(after)}`,
    '',
    `  before    after    delta${grew ? `  ${'growth'.padStart(10)}` : ''}   function`,
  ];
  for (const c of changes.slice(0, top)) {
    // Names and files come from the profiles: a control character could end the line and start a `::` command.
    const loc = c.file ? `  ${printable(c.file)}${c.line ? ':' + c.line : ''}` : '';
    const g = c.afterValue - c.beforeValue;
    const growth = grew ? `  ${((g >= 0 ? '+' : '') + formatWeight(g, unit)).padStart(10)}` : '';
    lines.push(
      `${pct(c.before).padStart(8)} ${pct(c.after).padStart(8)} ${signed(c.delta).padStart(8)}${growth}   ${printable(c.name)}${loc}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Red where the after profile spends more, blue where it spends less; width is the after share. */
function deltaColor(delta: number): string {
  const m = Math.min(1, Math.abs(delta) * 8);
  const v = Math.round(235 - 160 * m);
  return delta >= 0 ? `rgb(235,${v},${v})` : `rgb(${v},${v},235)`;
}

export function diffToSvg(before: Profile, after: Profile, width = 1200, fixPath: (s: string) => string = (x) => x): string {
  const d = diffTree(before, after);
  const t = d.tree;
  const total = t.total;
  const all = total[0] || 1;
  const rowH = 17;
  const pad = 10;
  const scale = (width - 2 * pad) / all;
  const rects: string[] = [];
  let maxDepth = 0;
  const items: { node: number; x: number; depth: number }[] = [];
  const stack = [{ node: 0, x: pad, depth: -1 }];
  while (stack.length) {
    const it = stack.pop()!;
    if (it.node) items.push(it);
    maxDepth = Math.max(maxDepth, it.depth);
    let cx = it.x;
    for (const c of t.children(it.node)) {
      const w = total[c] * scale;
      if (w >= 0.3) stack.push({ node: c, x: cx, depth: it.depth + 1 });
      cx += w;
    }
  }
  const H = (maxDepth + 1) * rowH + 2 * pad;
  for (const { node, x, depth } of items) {
    const f = d.frames[t.frame[node]];
    const w = total[node] * scale;
    const delta = total[node] - d.beforeTotal[node];
    const y = H - pad - (depth + 1) * rowH;
    const label = `${f.name}${f.file ? ` (${fixPath(f.file)}:${f.line})` : ''} — before ${pct(d.beforeTotal[node])}, after ${pct(total[node])} (${signed(delta)})`;
    const chars = Math.floor((w - 6) / 7);
    const text = chars >= 3 ? (f.name.length > chars ? f.name.slice(0, chars - 2) + '..' : f.name) : '';
    rects.push(
      `<g><title>${escapeXml(label)}</title><rect x="${x.toFixed(2)}" y="${y}" width="${Math.max(0.1, w - 0.5).toFixed(2)}" height="${rowH - 1}" fill="${deltaColor(delta)}"/>` +
        (text ? `<text x="${(x + 3).toFixed(2)}" y="${y + rowH - 5}">${escapeXml(text)}</text>` : '') +
        '</g>',
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" font-family="Verdana, sans-serif" font-size="12">${rects.join('')}</svg>`;
}

/** One offline page: the differential flame graph and the table of biggest changes. No script. */
export function diffToHtml(before: Profile, after: Profile, beforeName: string, afterName: string, root?: string): string {
  const changes = diffFunctions(before, after).slice(0, 50);
  // A page sent to others: paths relative to the app's folder, the home folder as ~ (see shareable.ts).
  const fix = sharePaths(shareRoot(after.meta.source ?? afterName, root), homedir());
  const rows = changes
    .map(
      (c) =>
        `<tr><td>${escapeXml(c.name)}</td><td>${escapeXml(c.file ? `${fix(c.file)}:${c.line}` : '')}</td><td>${pct(c.before)}</td><td>${pct(c.after)}</td><td class="${c.delta >= 0 ? 'up' : 'down'}">${signed(c.delta)}</td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Node Flame diff</title>
<style>body{font-family:sans-serif;margin:16px}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}.up{color:#b00}.down{color:#00b}</style>
</head><body>
<h1>Node Flame: ${escapeXml(fix(beforeName))} → ${escapeXml(fix(afterName))}</h1>
<p>Width: share of samples after; red: grew, blue: shrank.</p>
${diffToSvg(before, after, 1200, fix)}
<h2>Biggest changes</h2>
<table><thead><tr><th>Function</th><th>Location</th><th>Before</th><th>After</th><th>Δ</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
