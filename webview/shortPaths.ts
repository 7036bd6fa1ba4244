/**
 * The shortest end of each path that no other path of the set ends with, at least the file's name: `index.js` twice
 * (express's router and body-parser) reads `router/index.js` and `body-parser/index.js`, as VS Code's tabs tell
 * same-named files apart. A name alone would send the eye to the wrong file.
 */
export function shortPaths(paths: Iterable<string>): Map<string, string> {
  const parts = new Map<string, string[]>();
  for (const p of paths)
    if (p && !parts.has(p))
      parts.set(
        p,
        p.split(/[\\/]/).filter((x, i) => x || i === 0),
      );
  const out = new Map<string, string>();
  // Grouped by name: only paths sharing a name need more than it.
  const byName = new Map<string, string[]>();
  for (const [p, segs] of parts) {
    const name = segs[segs.length - 1];
    const g = byName.get(name);
    if (g) g.push(p);
    else byName.set(name, [p]);
  }
  for (const [name, group] of byName) {
    if (group.length === 1) {
      out.set(group[0], name);
      continue;
    }
    for (const p of group) {
      const segs = parts.get(p)!;
      let k = 2;
      const end = (s: string[], n: number) => s.slice(Math.max(0, s.length - n)).join('/');
      while (k < segs.length && group.some((q) => q !== p && end(parts.get(q)!, k) === end(segs, k))) k++;
      out.set(p, k >= segs.length ? p : end(segs, k));
    }
  }
  return out;
}
