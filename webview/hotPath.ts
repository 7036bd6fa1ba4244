// Where the time goes, for the first view: the heaviest path's leaf or the hottest frame, and the scroll that shows it.
import { SMALL, type FNode } from './tree';

/** Not where the CPU time goes: merged "small frames" entries, and idle time (a profile of a mostly waiting app). */
const noPath = (n: FNode) => n.frame === SMALL || n.info?.category === 'idle';

/**
 * A frame's weight less its idle children's: a process level (`thread …`) of a run sampled on a clock is mostly its
 * idle child when the process waited, and weighing it whole led the first view into npm's start-up instead of the
 * worker that ran.
 */
const busyValue = (n: FNode) => n.value - (n.children ?? []).reduce((sum, c) => sum + (c.info?.category === 'idle' ? c.value : 0), 0);

/** Heaviest-child descent from `n` (by busy weight): the leaf the time goes to. */
export function heaviestLeaf(n: FNode): FNode {
  let x = n;
  for (;;) {
    let next: FNode | undefined;
    let best = -Infinity;
    for (const c of x.children ?? []) {
      if (noPath(c)) continue;
      const v = busyValue(c);
      if (v > best) [next, best] = [c, v];
    }
    if (!next) return x;
    x = next;
  }
}

/**
 * The frame the first view aims at: the heaviest path's leaf, or the frame with the most self time where another one
 * holds more. A heaviest path can end on a cheap leaf: perf's stacks lose OpenSSL's callers, and the guide app's
 * heaviest column ended at OPENSSL_cleanse while the SHA-512 frame that burned most hung 45 rows away near the root
 * (session 24, the e2e profile test's perf run, one run in two).
 */
export function hotTarget(n: FNode): FNode {
  let best = heaviestLeaf(n);
  const stack = [n];
  for (let x = stack.pop(); x; x = stack.pop()) {
    if (x.self > best.self) best = x;
    for (const c of x.children ?? []) if (!noPath(c)) stack.push(c);
  }
  return best;
}

export interface Drawing {
  /** Root at the top (icicle) or at the bottom (flame). */
  rootAtTop: boolean;
  /** Row height, px. */
  cell: number;
  /** The drawing's height, px (rows are laid from the root's edge). */
  height: number;
  /** The visible height of the box that scrolls it, px. */
  box: number;
}

/**
 * The scrollTop that shows the row at `depth` with one row of margin beyond it, and as many rows between
 * it and the root as the box holds (so a zoomed frame above the root stays in view when both fit).
 */
export function scrollToShow(depth: number, d: Drawing): number {
  const edge = (depth + 2) * d.cell;
  const max = Math.max(0, d.height - d.box);
  const top = d.rootAtTop ? edge - d.box : Math.min(max, d.height - edge);
  return Math.max(0, Math.min(max, top));
}

/** The scrollTop that shows the row at `depth` with its parent's row, and as much of what it calls as fits. */
export function scrollToFrame(depth: number, d: Drawing): number {
  const max = Math.max(0, d.height - d.box);
  const top = d.rootAtTop ? (depth - 1) * d.cell : d.height - d.box - (depth - 1) * d.cell;
  return Math.max(0, Math.min(max, top));
}
