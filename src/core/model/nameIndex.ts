/**
 * Ids grouped by a name, told apart within a name by a field test. Most names have one frame: a Map
 * lookup by the name string is cheaper than building and hashing a key of every field per frame.
 */
export class NameIndex {
  private readonly byName = new Map<string, number | number[]>();

  /** The first id under `name` that `same` accepts, or -1. */
  find(name: string, same: (id: number) => boolean): number {
    const v = this.byName.get(name);
    if (v === undefined) return -1;
    if (typeof v === 'number') return same(v) ? v : -1;
    for (const id of v) if (same(id)) return id;
    return -1;
  }

  add(name: string, id: number): void {
    const v = this.byName.get(name);
    if (v === undefined) this.byName.set(name, id);
    else if (typeof v === 'number') this.byName.set(name, [v, id]);
    else v.push(id);
  }
}
