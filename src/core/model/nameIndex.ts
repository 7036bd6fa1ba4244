/** Names shared by more ids than this are looked up by a key of all fields instead of one test per id. */
const LIST_MAX = 8;

interface Shared {
  ids: number[];
  /** Built once the list outgrows LIST_MAX: a profile may hold 100 000 frames of one name (quadratic to scan). */
  byKey?: Map<string, number>;
}

/**
 * Ids grouped by a name, told apart within a name by a field test. Most names have one frame: a Map
 * lookup by the name string is cheaper than building and hashing a key of every field per frame.
 * `keyOf(id)` and `key()` spell the fields `same` compares, for names with many ids.
 */
export class NameIndex {
  private readonly byName = new Map<string, number | Shared>();

  /** The first id under `name` that `same` accepts; otherwise `make()`'s id, filed under `name`. */
  intern(name: string, same: (id: number) => boolean, make: () => number, keyOf: (id: number) => string, key: () => string): number {
    const v = this.byName.get(name);
    if (v === undefined) {
      const id = make();
      this.byName.set(name, id);
      return id;
    }
    if (typeof v === 'number') {
      if (same(v)) return v;
      const id = make();
      this.byName.set(name, { ids: [v, id] });
      return id;
    }
    if (v.ids.length <= LIST_MAX) {
      for (const id of v.ids) if (same(id)) return id;
      const id = make();
      v.ids.push(id);
      return id;
    }
    if (!v.byKey) {
      v.byKey = new Map();
      for (const id of v.ids) {
        const k = keyOf(id);
        if (!v.byKey.has(k)) v.byKey.set(k, id);
      }
    }
    const k = key();
    const hit = v.byKey.get(k);
    if (hit !== undefined) return hit;
    const id = make();
    v.ids.push(id);
    v.byKey.set(k, id);
    return id;
  }
}
