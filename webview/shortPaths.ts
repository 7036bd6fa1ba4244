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
  const end = (segs: string[], k: number) => segs.slice(Math.max(0, segs.length - k)).join('/');
  for (const [name, group] of byName) {
    if (group.length === 1) {
      out.set(group[0], name);
      continue;
    }
    // One count of the group's ends per length, not a comparison of each path with each other (node_modules holds
    // hundreds of index.js, and this runs at each refresh of the table).
    let open = group;
    for (let k = 2; open.length; k++) {
      const count = new Map<string, number>();
      for (const q of group) {
        const e = end(parts.get(q)!, k);
        count.set(e, (count.get(e) ?? 0) + 1);
      }
      const still: string[] = [];
      for (const p of open) {
        const segs = parts.get(p)!;
        const e = end(segs, k);
        if (k >= segs.length) out.set(p, p);
        else if (count.get(e) === 1) out.set(p, e);
        else still.push(p);
      }
      open = still;
    }
  }
  return out;
}
