/**
 * A call tree in parallel typed arrays: node 0 is the root (frame -1), every other node is a
 * (parent, frame) pair. Millions of samples fold into far fewer nodes, and typed arrays keep a
 * 100k-node tree at a few MB instead of a few hundred.
 */
export class CallTree {
  count = 1;
  parent: Int32Array;
  frame: Int32Array;
  /** Samples (or perf periods, as weights) whose leaf is this node. */
  self: Float64Array;
  /** Self time in ms where the format has timestamps; zeros otherwise. */
  selfTime: Float64Array;
  private totalCache?: Float64Array;
  private totalTimeCache?: Float64Array;
  private childCache?: { first: Int32Array; next: Int32Array };
  /**
   * (parent, frame) → child, open addressing in a typed array (node id + 1; 0 is empty), at most half full.
   * A Map keyed by numbers past 2^31 boxes every key: one allocation per lookup, millions per import.
   */
  private slots: Int32Array;

  constructor(capacity = 1024) {
    this.parent = new Int32Array(capacity);
    this.frame = new Int32Array(capacity);
    this.self = new Float64Array(capacity);
    this.selfTime = new Float64Array(capacity);
    this.parent[0] = -1;
    this.frame[0] = -1;
    let slots = 16;
    while (slots < 2 * capacity) slots *= 2;
    this.slots = new Int32Array(slots);
  }

  private grow(): void {
    const cap = this.parent.length * 2;
    const g = <T extends Int32Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as { new (n: number): T })(cap);
      b.set(a);
      return b;
    };
    this.parent = g(this.parent);
    this.frame = g(this.frame);
    this.self = g(this.self);
    this.selfTime = g(this.selfTime);
  }

  /** The slot holding (parent, frame)'s child, or the empty slot where it belongs. */
  private slotOf(parent: number, frame: number): number {
    const mask = this.slots.length - 1;
    let h = Math.imul(parent, 0x9e3779b1) ^ frame;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    let i = (h ^ (h >>> 16)) & mask;
    for (;;) {
      const s = this.slots[i];
      if (s === 0) return i;
      if (this.parent[s - 1] === parent && this.frame[s - 1] === frame) return i;
      i = (i + 1) & mask;
    }
  }

  /** The child of `parent` for `frame`, created when missing. */
  child(parent: number, frame: number): number {
    const slot = this.slotOf(parent, frame);
    if (this.slots[slot] !== 0) return this.slots[slot] - 1;
    if (this.count === this.parent.length) this.grow();
    const id = this.count++;
    this.parent[id] = parent;
    this.frame[id] = frame;
    if (2 * this.count > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      for (let n = 1; n < this.count; n++) this.slots[this.slotOf(this.parent[n], this.frame[n])] = n + 1;
    } else this.slots[slot] = id + 1;
    this.invalidate();
    return id;
  }

  /** Adds a sample whose stack is `frames` from root-most to leaf; returns the leaf node. */
  addStack(frames: ArrayLike<number>, weight = 1, timeMs = 0): number {
    let node = 0;
    for (let i = 0; i < frames.length; i++) node = this.child(node, frames[i]);
    this.self[node] += weight;
    this.selfTime[node] += timeMs;
    this.totalCache = undefined;
    this.totalTimeCache = undefined;
    return node;
  }

  addSelf(node: number, weight: number, timeMs = 0): void {
    this.self[node] += weight;
    this.selfTime[node] += timeMs;
    this.totalCache = undefined;
    this.totalTimeCache = undefined;
  }

  private invalidate(): void {
    this.totalCache = undefined;
    this.totalTimeCache = undefined;
    this.childCache = undefined;
  }

  /** Self plus all descendants. Children always have higher ids than their parent. */
  get total(): Float64Array {
    if (!this.totalCache) this.totalCache = this.accumulate(this.self);
    return this.totalCache;
  }

  get totalTime(): Float64Array {
    if (!this.totalTimeCache) this.totalTimeCache = this.accumulate(this.selfTime);
    return this.totalTimeCache;
  }

  private accumulate(src: Float64Array): Float64Array {
    const t = new Float64Array(this.count);
    t.set(src.subarray(0, this.count));
    for (let i = this.count - 1; i > 0; i--) t[this.parent[i]] += t[i];
    return t;
  }

  /** Total weight of all samples. */
  get weight(): number {
    return this.total[0];
  }

  children(node: number): number[] {
    const out: number[] = [];
    for (let c = this.firstChild(node); c !== -1; c = this.nextSibling(c)) out.push(c);
    return out;
  }

  /** The first child of `node` in `children`' order, or -1: with `nextSibling`, a walk that makes no array per node. */
  firstChild(node: number): number {
    return this.childLinks().first[node];
  }

  nextSibling(child: number): number {
    return this.childLinks().next[child];
  }

  private childLinks(): { first: Int32Array; next: Int32Array } {
    if (!this.childCache) {
      const first = new Int32Array(this.count).fill(-1);
      const next = new Int32Array(this.count).fill(-1);
      for (let i = this.count - 1; i > 0; i--) {
        const p = this.parent[i];
        next[i] = first[p];
        first[p] = i;
      }
      this.childCache = { first, next };
    }
    return this.childCache;
  }

  /** Depth of every node (the root's is 0). */
  depths(): Int32Array {
    const d = new Int32Array(this.count);
    for (let i = 1; i < this.count; i++) d[i] = d[this.parent[i]] + 1;
    return d;
  }

  /**
   * How many frames `forEachStack` hands out in all (each stack with self weight, counted whole): what
   * anything writing every stack costs. A chain n deep with weight on each node gives n²/2 from n nodes.
   */
  stackFrames(): number {
    const d = this.depths();
    let sum = 0;
    for (let i = 1; i < this.count; i++) if (this.self[i] > 0) sum += d[i];
    return sum;
  }

  depth(node: number): number {
    let d = 0;
    for (let n = node; n > 0; n = this.parent[n]) d++;
    return d;
  }

  /** Frames from the root-most to `node`. */
  stack(node: number): number[] {
    const s: number[] = [];
    for (let n = node; n > 0; n = this.parent[n]) s.push(this.frame[n]);
    return s.reverse();
  }

  /** Visits every node with non-zero self weight, with its stack (root-most first). */
  forEachStack(fn: (stack: readonly number[], self: number, selfTime: number, node: number) => void): void {
    const path: number[] = [];
    // Explicit stack, same pre-order as recursion: stacks deeper than ~10k frames (runaway recursion,
    // damaged input) would overflow the JS stack. `~node` marks leaving a node.
    const todo: number[] = [0];
    while (todo.length) {
      const node = todo.pop()!;
      if (node < 0) {
        path.pop();
        continue;
      }
      if (node > 0) {
        path.push(this.frame[node]);
        todo.push(~node);
      }
      if (this.self[node] > 0) fn(path, this.self[node], this.selfTime[node], node);
      const kids = this.children(node);
      for (let i = kids.length - 1; i >= 0; i--) todo.push(kids[i]);
    }
  }

  /**
   * The one tree rewrite (frame remaps, view toggles and call-tree transforms all go through it). Nodes are
   * visited parents first; `place(node, outParent, out)` answers where the node goes in the new tree: a node
   * of `out` (a child of `outParent` made with `out.child`, `outParent` itself to fold into the caller, or
   * any earlier node), or -1 to drop its samples (its children then get -1 as `outParent`). Its own samples
   * go where it was placed unless `selfAt(node, placed)` says another node (-1: dropped). The root's own
   * samples are kept unless `dropRootSelf`. `samplesTo`, when given (one slot per node), is filled with the
   * new node each node's own samples went to (-1: dropped), so a per-sample timeline can follow the rewrite.
   */
  rewrite(
    place: (node: number, outParent: number, out: CallTree) => number,
    opts: { dropRootSelf?: boolean; selfAt?: (node: number, placed: number) => number; samplesTo?: Int32Array; capacity?: number } = {},
  ): CallTree {
    // `capacity`: the nodes the new tree is expected to hold (it grows past them), when far fewer than this one's.
    const out = new CallTree(Math.max(16, opts.capacity ?? this.count));
    const nodeMap = new Int32Array(this.count);
    const to = opts.samplesTo;
    if (to) to[0] = opts.dropRootSelf ? -1 : 0;
    for (let i = 1; i < this.count; i++) {
      const p = this.parent[i];
      const n = place(i, p === 0 ? 0 : nodeMap[p], out);
      nodeMap[i] = n;
      if (!to && !this.self[i] && !this.selfTime[i]) continue;
      const at = opts.selfAt ? opts.selfAt(i, n) : n;
      if (to) to[i] = at;
      if (at >= 0 && (this.self[i] || this.selfTime[i])) out.addSelf(at, this.self[i], this.selfTime[i]);
    }
    if (!opts.dropRootSelf && (this.self[0] || this.selfTime[0])) out.addSelf(0, this.self[0], this.selfTime[0]);
    return out;
  }

  /**
   * A copy with frame ids rewritten through `map` (-1 drops the frame, folding it into its parent).
   * `foldIntoSame(f)` lets a new frame fold into a parent of the same new frame (a package calling itself).
   */
  remap(map: (frame: number) => number, foldIntoSame?: (frame: number) => boolean, samplesTo?: Int32Array): CallTree {
    return this.rewrite(
      (i, p, out) => {
        const f = map(this.frame[i]);
        const fold = f < 0 || (foldIntoSame !== undefined && p > 0 && out.frame[p] === f && foldIntoSame(f));
        return fold ? p : out.child(p, f);
      },
      { samplesTo },
    );
  }

  /**
   * A tree from parallel arrays in node-id order (as `parent`/`frame`/`self` hold them), with the same ids.
   * Throws when a node's parent does not come before it or its frame is outside `0..frameCount`. A tree whose
   * (parent, frame) pairs repeat (importers may add nodes directly) keeps its nodes as they are: merging
   * them would change ids that the timeline refers to.
   */
  static fromArrays(
    a: { count: number; parent: ArrayLike<number>; frame: ArrayLike<number>; self: ArrayLike<number>; selfTime?: ArrayLike<number> },
    frameCount: number,
  ): CallTree {
    const n = a.count;
    if (n < 1 || a.parent.length < n || a.frame.length < n || a.self.length < n) throw new Error('call tree: bad shape');
    let tree = new CallTree(Math.max(16, n));
    let indexed = true;
    for (let i = 1; i < n; i++) {
      const p = a.parent[i];
      const f = a.frame[i];
      if (!(p >= 0 && p < i) || !(f >= 0 && f < frameCount)) throw new Error(`call tree: bad node ${i}`);
      if (indexed && tree.child(p, f) !== i) indexed = false;
    }
    if (!indexed) {
      tree = new CallTree(Math.max(16, n));
      for (let i = 0; i < n; i++) {
        tree.parent[i] = a.parent[i];
        tree.frame[i] = a.frame[i];
      }
      tree.count = n;
    }
    for (let i = 0; i < n; i++) {
      tree.self[i] = a.self[i];
      tree.selfTime[i] = a.selfTime ? a.selfTime[i] : 0;
    }
    return tree;
  }
}
