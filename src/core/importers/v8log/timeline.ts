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
