// A trace's ProfileChunk events give each sample's line (`lines`): counted by node and line, as a .cpuprofile's
// positionTicks, in a table of typed arrays (a Map of Maps cost two lookups a sample, a million samples a 120 MB trace).

/** Node ids at or past this are looked up by hash only. */
const MAX_NODE_CACHE = 1 << 22;

/** Sample counts by (node id, line), each node's lines in the order they first came. */
export class LineCounts {
  private node: number[] = [];
  private line: number[] = [];
  private count: number[] = [];
  /** Pair index + 1 by hash, open addressing, at most half full. */
  private slots = new Int32Array(1024);

  add(node: number, line: number): void {
    // A hot loop's samples come in runs on one line: the run's pair is counted without a lookup.
    if (node === this.lastNode && line === this.lastLine) {
      this.count[this.last]++;
      return;
    }
    // A node's samples are mostly on one line (V8 gives a frame's current line): its last pair, by its id while ids are
    // small whole numbers (V8 numbers nodes from 1), is counted without hashing.
    if (node >>> 0 === node && node < this.lastOfNode.length) {
      const k = this.lastOfNode[node] - 1;
      if (k >= 0 && this.line[k] === line) {
        this.count[k]++;
        this.remember(node, line, k);
        return;
      }
    } else if (node >>> 0 === node && node < MAX_NODE_CACHE) this.growNodes(node);
    const mask = this.slots.length - 1;
    // Node ids and lines are whole numbers, lines ≥ 1; ids past 2^32 hash by their high part too.
    let h = Math.imul((node | 0) ^ ((node / 4294967296) | 0), 0x9e3779b1) ^ Math.imul(line | 0, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    for (let i = (h ^ (h >>> 13)) & mask; ; i = (i + 1) & mask) {
      const k = this.slots[i] - 1;
      if (k < 0) {
        this.slots[i] = this.node.push(node);
        this.line.push(line);
        this.count.push(1);
        if (2 * this.node.length > mask) this.grow();
        this.remember(node, line, this.node.length - 1);
        return;
      }
      if (this.node[k] === node && this.line[k] === line) {
        this.count[k]++;
        this.remember(node, line, k);
        return;
      }
    }
  }

  private lastNode = NaN;
  private lastLine = NaN;
  private last = 0;

  private remember(node: number, line: number, k: number): void {
    this.lastNode = node;
    this.lastLine = line;
    this.last = k;
    if (node >>> 0 === node && node < this.lastOfNode.length) this.lastOfNode[node] = k + 1;
  }

  /** Each node's last pair + 1 (0: none yet), by node id. */
  private lastOfNode = new Int32Array(0);

  private growNodes(node: number): void {
    const grown = new Int32Array(Math.min(MAX_NODE_CACHE, Math.max(1024, 2 * node + 1)));
    grown.set(this.lastOfNode);
    this.lastOfNode = grown;
  }

  private grow(): void {
    const pairs = this.node.length;
    const { node, line, count } = this;
    this.lastNode = NaN;
    this.slots = new Int32Array(this.slots.length * 2);
    this.node = [];
    this.line = [];
    this.count = [];
    for (let k = 0; k < pairs; k++) {
      this.add(node[k], line[k]);
      this.count[k] = count[k];
    }
  }

  /** Each node's lines with their counts, as positionTicks. */
  byNode(): Map<number, { line: number; ticks: number }[]> {
    const out = new Map<number, { line: number; ticks: number }[]>();
    for (let k = 0; k < this.node.length; k++) {
      let ticks = out.get(this.node[k]);
      if (!ticks) out.set(this.node[k], (ticks = []));
      ticks.push({ line: this.line[k], ticks: this.count[k] });
    }
    return out;
  }
}
