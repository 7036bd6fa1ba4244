/**
 * Ids grouped by a name, told apart within a name by a field test. Most names have one frame: a Map
 * lookup by the name string is cheaper than building and hashing a key of every field per frame.
 */
export class NameIndex {
  private readonly byName = new Map<string, number | number[]>();

  /** The first id under `name` that `same` accepts; otherwise `make()`'s id, filed under `name`. */
  intern(name: string, same: (id: number) => boolean, make: () => number): number {
    const v = this.byName.get(name);
    if (v === undefined) {
      const id = make();
      this.byName.set(name, id);
      return id;
    }
    if (typeof v === 'number') {
      if (same(v)) return v;
      const id = make();
      this.byName.set(name, [v, id]);
      return id;
    }
    for (const id of v) if (same(id)) return id;
    const id = make();
    v.push(id);
    return id;
  }
}
