type Primitive = string | number | boolean | null;
export type Json = Primitive | Json[] | { [k: string]: Json };

type Op = '$eq' | '$ne' | '$gt' | '$lt' | '$in';
export type Query<T> = { [K in keyof T]?: T[K] | { [O in Op]?: O extends '$in' ? T[K][] : T[K] } };

export function matches<T extends Record<string, Primitive>>(row: T, q: Query<T>): boolean {
  for (const key of Object.keys(q) as (keyof T)[]) {
    const cond = q[key];
    const v = row[key];
    if (cond !== null && typeof cond === 'object') {
      const c = cond as { [O in Op]?: unknown };
      if ('$eq' in c && v !== c.$eq) return false;
      if ('$ne' in c && v === c.$ne) return false;
      if ('$gt' in c && !((v as number) > (c.$gt as number))) return false;
      if ('$lt' in c && !((v as number) < (c.$lt as number))) return false;
      if ('$in' in c && !(c.$in as unknown[]).includes(v)) return false;
    } else if (v !== cond) return false;
  }
  return true;
}

export function groupBy<T, K extends PropertyKey>(rows: readonly T[], key: (r: T) => K): Record<K, T[]> {
  const out = {} as Record<K, T[]>;
  for (const r of rows) (out[key(r)] ??= []).push(r);
  return out;
}
