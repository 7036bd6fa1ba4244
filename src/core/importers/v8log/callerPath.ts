import type { Tier } from '../../model';
import type { CallPair, Site } from './callSites';
import type { Resolved } from './resolver';
import { grownLater } from './grownLater';

/**
 * The callers of the last stack built, root first, and the state of the stack after each of them. Ticks of a real
 * program share most of their callers with the tick before (tsc: two frames in three), so the next stack starts from
 * the state at the first caller that differs instead of resolving and counting every frame again.
 */
export class CallerPath {
  /** Entries (return addresses, including those that resolve to nothing). */
  length = 0;
  addrs = new Float64Array(256);
  readonly res: (Resolved | null)[] = [];
  readonly tail: (Resolved | null)[] = [];
  /** The state before entry j, for j up to `length`: lengths of the arrays below, and so on. */
  linesLen = new Int32Array(257);
  sitesLen = new Int32Array(257);
  pairsLen = new Int32Array(257);
  tiersLen = new Int32Array(257);
  blind = new Uint8Array(257);
  node = new Int32Array(257);
  dropped = new Int32Array(257);
  /** The last stack's arrays; entries past the lengths above belong to its leaf end. */
  keys: number[] = [];
  sites: Site[] = [];
  pairs: CallPair[] = [];
  tiers: (Tier | 'unknown')[] = [];
  /** The resolvers' versions the entries were resolved at; a path whose answers may have changed is not reused. */
  resolverVersion = -1;
  nativeVersion = -1;
  valid = false;
  /** Whether the last stack was cut at V8's depth limit (it then hangs under STACK_TOO_DEEP, not from the root). */
  cut = false;
  /** Code added since the path was built, as start, end pairs: an address in one may resolve otherwise now. */
  readonly added: number[] = [];

  constructor() {
    grownLater(this, 'addrs', 'linesLen', 'sitesLen', 'pairsLen', 'tiersLen', 'blind', 'node', 'dropped');
  }

  ensure(entries: number): void {
    if (entries < this.addrs.length) return;
    const n = Math.max(entries + 1, this.addrs.length * 2);
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const g = make(n + 1);
      g.set(a);
      return g;
    };
    this.addrs = grow(this.addrs, (k) => new Float64Array(k));
    this.linesLen = grow(this.linesLen, (k) => new Int32Array(k));
    this.sitesLen = grow(this.sitesLen, (k) => new Int32Array(k));
    this.pairsLen = grow(this.pairsLen, (k) => new Int32Array(k));
    this.tiersLen = grow(this.tiersLen, (k) => new Int32Array(k));
    this.blind = grow(this.blind, (k) => new Uint8Array(k));
    this.node = grow(this.node, (k) => new Int32Array(k));
    this.dropped = grow(this.dropped, (k) => new Int32Array(k));
  }

  /** Code was added at [start, end). */
  codeAdded(start: number, end: number): void {
    if (!this.valid) return;
    // Past a few, checking them costs more than building the next stack afresh.
    if (this.added.length >= 64) this.reset();
    else this.added.push(start, end);
  }

  reset(): void {
    this.valid = false;
    this.length = 0;
    this.added.length = 0;
  }

  /** How many of the root-first `addrs` (given leaf first: `leafFirst[m - 1]` is the root) are this path's first entries. */
  common(leafFirst: Float64Array, m: number): number {
    if (!this.valid) return 0;
    const a = this.addrs;
    const n = Math.min(m, this.length);
    let k = 0;
    while (k < n && leafFirst[m - 1 - k] === a[k]) k++;
    const added = this.added;
    if (added.length === 0) return k;
    for (let j = 0; j < k; j++) {
      for (let i = 0; i < added.length; i += 2) if (a[j] >= added[i] && a[j] < added[i + 1]) return j;
    }
    return k;
  }
}
