// Renders the /report page: an HTML table with a sparkline per row, on the main thread, per request.
import { sparkline } from './chart';

/** One line of the report table. */
export interface Row {
  id: number;
  name: string;
  city: string;
  series: number[];
}

/** Options for a page render. */
export interface RenderOptions {
  title: string;
  rows: Row[];
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export function renderRow(row: Row): string {
  const chart = sparkline(row.series, { width: 120, height: 24, window: 48, points: 40 });
  const last = row.series[row.series.length - 1];
  return `<tr><td>${row.id}</td><td>${escapeHtml(row.name)}</td><td>${escapeHtml(row.city)}</td><td>${last.toFixed(2)}</td><td>${chart}</td></tr>`;
}

export function renderPage(opts: RenderOptions): string {
  const body = opts.rows.map(renderRow).join('\n');
  return `<!doctype html><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title><table>\n${body}\n</table>`;
}
