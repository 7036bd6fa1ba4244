import { capped, formatWeight, type Category, type Profile } from '../model';
import { DEPTH_WINDOW } from '../model/prune';

/** Category colours for static exports; the live viewer takes its colours from the VS Code theme. */
export const CATEGORY_COLORS: Record<Category, string> = {
  app: '#e8743b',
  dependency: '#d9a441',
  node: '#7fb35a',
  native: '#c9553d',
  v8: '#5b9bd5',
  gc: '#9b6fc3',
  'shared-lib': '#b5835a',
  kernel: '#8c8c8c',
  idle: '#c8c8c8',
  program: '#a0a0a0',
  unaccounted: '#d0d0d0',
  eval: '#e0a080',
  wasm: '#6fa8a0',
};

export function escapeXml(s: string): string {
  // Strip characters XML 1.0 forbids (function names can hold anything) before escaping markup.
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd').replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface SvgOptions {
  width?: number;
  title?: string;
  /** Frames narrower than this many pixels are left out. */
  minWidth?: number;
}

/** A static, self-contained flame graph (root at the bottom), with a <title> tooltip per frame. */
export function toSvg(profile: Profile, opts: SvgOptions = {}): string {
  const W = opts.width ?? 1200;
  const rowH = 17;
  const pad = 10;
  const top = 40;
  const minW = opts.minWidth ?? 0.3;
  const t = profile.tree;
  const total = t.total;
  const all = total[0] || 1;
  const scale = (W - 2 * pad) / all;
  const rects: { x: number; depth: number; w: number; node: number }[] = [];
  let maxDepth = 0;
  const stack: { node: number; x: number; depth: number }[] = [{ node: 0, x: pad, depth: -1 }];
  while (stack.length) {
    const { node, x, depth } = stack.pop()!;
    if (node !== 0) {
      rects.push({ x, depth, w: total[node] * scale, node });
      if (depth > maxDepth) maxDepth = depth;
    }
    let cx = x;
    const kids = t.children(node).sort((a, b) => {
      const fa = profile.frames[t.frame[a]].name;
      const fb = profile.frames[t.frame[b]].name;
      return fa < fb ? -1 : fa > fb ? 1 : 0;
    });
    for (const c of kids) {
      const w = total[c] * scale;
      // A picture cannot be expanded: a chain deeper than the viewer's window ends there.
      if (w >= minW && depth + 1 < DEPTH_WINDOW) stack.push({ node: c, x: cx, depth: depth + 1 });
      cx += w;
    }
  }
  const H = top + (maxDepth + 1) * rowH + pad + 20;
  const out: string[] = [];
  out.push(
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Verdana, sans-serif" font-size="12">`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#fdfdfd"/>`,
    `<text x="${W / 2}" y="24" text-anchor="middle" font-size="16">${escapeXml(opts.title ?? 'Flame graph')}</text>`,
  );
  const unit = profile.meta.unit ?? 'samples';
  const weight = (w: number) =>
    unit === 'samples' ? `${w} samples` : unit === 'objects' ? `${Math.round(w)} objects` : formatWeight(w, unit);
  for (const r of rects) {
    const f = profile.frames[t.frame[r.node]];
    const y = H - pad - 20 - (r.depth + 1) * rowH;
    const pct = ((total[r.node] / all) * 100).toFixed(2);
    const loc = f.file ? ` (${capped(f.file)}${f.line ? ':' + f.line : ''})` : '';
    const label = `${capped(f.name)}${loc} — ${pct}% (${weight(total[r.node])})`;
    const chars = Math.floor((r.w - 6) / 7);
    const text = chars >= 3 ? (f.name.length > chars ? f.name.slice(0, chars - 2) + '..' : f.name) : '';
    out.push(
      `<g><title>${escapeXml(label)}</title><rect x="${r.x.toFixed(2)}" y="${y}" width="${Math.max(0.1, r.w - 0.5).toFixed(2)}" height="${rowH - 1}" fill="${CATEGORY_COLORS[f.category]}" rx="2"/>` +
        (text ? `<text x="${(r.x + 3).toFixed(2)}" y="${y + rowH - 5}">${escapeXml(text)}</text>` : '') +
        '</g>',
    );
  }
  out.push('</svg>\n');
  return out.join('\n');
}
