import { grownLater } from './grownLater';

/**
 * Leaf node and time of every sample, in order. Typed arrays grown by doubling live outside the
 * JS heap, so a million samples are not copied by every young-generation GC the way arrays are.
 */
export class TimelineBuilder {
  private nodes = new Uint32Array(4096);
  private times = new Float64Array(4096);
  length = 0;

  constructor() {
    grownLater(this, 'nodes', 'times');
  }

  push(node: number, timeMs: number): void {
    if (this.length === this.nodes.length) {
      const nodes = new Uint32Array(this.length * 2);
      nodes.set(this.nodes);
      this.nodes = nodes;
      const times = new Float64Array(this.length * 2);
      times.set(this.times);
      this.times = times;
    }
    this.nodes[this.length] = node;
    this.times[this.length++] = timeMs;
  }

  finish(): { nodes: Uint32Array; times: Float64Array } {
    return { nodes: this.nodes.slice(0, this.length), times: this.times.slice(0, this.length) };
  }
}

/**
 * Several threads' timelines (each in time order, its times from `offsetMs`) as one, in time order; at equal times
 * the earlier part's sample first.
 */
export function mergeTimelines(parts: { nodes: Uint32Array; times: Float64Array; offsetMs: number }[]): {
  nodes: Uint32Array;
  times: Float64Array;
} {
  let total = 0;
  for (const p of parts) total += p.times.length;
  const nodes = new Uint32Array(total);
  const times = new Float64Array(total);
  const at = new Array<number>(parts.length).fill(0);
  for (let k = 0; k < total; k++) {
    let best = -1;
    let bestTime = Infinity;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (at[i] === p.times.length) continue;
      const t = p.times[at[i]] + p.offsetMs;
      if (best < 0 || t < bestTime) [best, bestTime] = [i, t];
    }
    const p = parts[best];
    nodes[k] = p.nodes[at[best]++];
    times[k] = bestTime;
  }
  return { nodes, times };
}
