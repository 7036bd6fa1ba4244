import { area, type DeepReadonly, type Paths, type Shape } from './shapes';

interface State {
  user: { name: string; address: { city: string; zip: string }; tags: string[] };
  shapes: Shape[];
  settings: { theme: 'light' | 'dark'; layout: { columns: number; rows: number } };
}

export type StatePath = Paths<State>;

export class Store<S extends object> {
  private listeners = new Map<string, Set<(s: DeepReadonly<S>) => void>>();
  constructor(private state: S) {}
  get(): DeepReadonly<S> {
    return this.state as DeepReadonly<S>;
  }
  update<K extends keyof S>(key: K, fn: (v: S[K]) => S[K]): void {
    this.state = { ...this.state, [key]: fn(this.state[key]) };
    for (const set of this.listeners.values()) for (const l of set) l(this.get());
  }
  on(event: string, l: (s: DeepReadonly<S>) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(l);
    this.listeners.set(event, set);
    return () => set.delete(l);
  }
}

export function totalArea(store: Store<State>): number {
  return store.get().shapes.reduce((sum, s) => sum + area(s), 0);
}
