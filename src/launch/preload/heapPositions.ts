import type * as Inspector from 'node:inspector';
import { pathToFileURL } from 'node:url';
import { atMainModuleEnd, type MainFunction } from './moduleHooks';

interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface HeapNode {
  id: number;
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}
export interface SamplingProfile {
  head: HeapNode;
  samples?: unknown[];
}

function walk(head: HeapNode, f: (n: HeapNode) => void): void {
  const todo = [head];
  for (let n = todo.pop(); n; n = todo.pop()) {
    f(n);
    for (const c of n.children ?? []) todo.push(c);
  }
}

/**
 * The profiler's own bytes are not the app's. Its inspector calls allocate while V8 still samples (in live mode `post`,
 * node:inspector, held 15–26 % of a small program's bytes, seen in CI), and so does its start-up (`hookVm` and the
 * bundle's top level held 25 % of test heap's 8 samples in a CI run). A node is the profiler's when no app frame is
 * above it and it is this bundle's code or node's/V8's code this bundle called: those nodes' bytes go, and their
 * samples. Where app code is above (an app's `vm` call through our hook), the bytes are the app's and stay.
 */
export function dropOwnCalls(profile: SamplingProfile): void {
  const own = new Set([__filename, pathToFileURL(__filename).href]);
  const dropped = new Set<number>();
  type Step = { n: HeapNode; appAbove: boolean; ownAbove: boolean; ownParent: boolean; inspector: boolean };
  const todo: Step[] = [{ n: profile.head, appAbove: false, ownAbove: false, ownParent: false, inspector: false }];
  for (let t = todo.pop(); t; t = todo.pop()) {
    const url = t.n.callFrame.url;
    const isOwn = own.has(url);
    const isApp = !isOwn && url !== '' && !url.startsWith('node:');
    // Our inspector calls are ours wherever they run (the look at the main module's end runs under the app's frames).
    const inspector = t.inspector || (t.ownParent && url === 'node:inspector');
    if (inspector || (!t.appAbove && (isOwn || (t.ownAbove && !isApp)))) {
      dropped.add(t.n.id);
      t.n.selfSize = 0;
    }
    for (const c of t.n.children ?? [])
      todo.push({ n: c, appAbove: t.appAbove || isApp, ownAbove: t.ownAbove || isOwn, ownParent: isOwn, inspector });
  }
  if (!dropped.size) return;
  // Subtrees left with no bytes, rooted at a dropped node or our own frame, go from the tree.
  const bytes = new Map<number, number>();
  const order: HeapNode[] = [];
  walk(profile.head, (n) => order.push(n));
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    bytes.set(
      n.id,
      (n.children ?? []).reduce((sum, c) => sum + bytes.get(c.id)!, n.selfSize),
    );
  }
  walk(profile.head, (n) => {
    if (!n.children) return;
    n.children = n.children.filter((c) => {
      if (!(dropped.has(c.id) || own.has(c.callFrame.url)) || bytes.get(c.id)! > 0) return true;
      walk(c, (d) => dropped.add(d.id));
      return false;
    });
  });
  if (Array.isArray(profile.samples))
    profile.samples = profile.samples.filter((x) => !dropped.has((x as { nodeId?: number }).nodeId ?? -1));
}

/**
 * V8 gives a sample's function its file and line only while its script lives: once the script is
 * collected (a batch program's main module after its last line) the profile taken at exit names
 * `leak` with no file and line -1. A sloppy main module's function is held to the end, which keeps its script.
 * For a strict one (its function cannot be had) a node keeps its id for the whole sampling, so a look taken while
 * the main module's script lives (at its last line; the inspector's look runs a full GC first, so not
 * every second) remembers each node's position, and the profile written at exit gets back those it lost.
 *
 * Live mode also keeps that look when it holds more than the exit's: a batch program's data dies with
 * its main module, so at exit (after a full GC) nothing of it is left.
 */
export class HeapPositions {
  /**
   * By node id: the position's script (index into `scripts`, +1; 0: none), line and column. A compiler's profile has
   * ~340 000 nodes: their call frames kept as objects (and a URL string each) would weigh ~50 MB at exit.
   */
  private script = new Int32Array(0);
  private line = new Int32Array(0);
  private column = new Int32Array(0);
  private readonly scripts: { url: string; scriptId: string }[] = [];
  private readonly scriptIndex = new Map<string, number>();
  private fullest: { profile: SamplingProfile; bytes: number } | undefined;

  constructor(
    private readonly session: Inspector.Session,
    private readonly keepFullest: boolean,
  ) {
    atMainModuleEnd((main) => {
      // Held, the main module's function keeps its script, and the profile at exit has every position: no look,
      // which on a compiler costs as much as the exit's (V8 builds the whole profile; tsc: ~350 000 nodes, ~600 MB).
      // Live mode looks anyway: what a batch program holds dies with its main module.
      if (main && !keepFullest) this.held = main;
      else this.look(keepFullest);
    });
  }

  /** The main module's function, held to the end so V8 keeps its script's positions. */
  private held: MainFunction | undefined;

  /** Remembers the position of every node V8 still knows; in-process calls answer synchronously. */
  look(candidate: boolean): void {
    this.session.post('HeapProfiler.getSamplingProfile', (err, r) => {
      if (err) return;
      const profile = r.profile as unknown as SamplingProfile;
      let bytes = 0;
      walk(profile.head, (n) => {
        bytes += n.selfSize;
        if (n.callFrame.url && n.callFrame.lineNumber >= 0) this.remember(n.id, n.callFrame);
      });
      if (candidate && bytes > (this.fullest?.bytes ?? 0)) this.fullest = { profile, bytes };
    });
  }

  private remember(id: number, f: CallFrame): void {
    if (!(id >= 0 && id < 2 ** 30)) return;
    if (id >= this.script.length) {
      const size = Math.max(id + 1, this.script.length * 2, 1024);
      const grow = (a: Int32Array) => {
        const b = new Int32Array(size);
        b.set(a);
        return b;
      };
      this.script = grow(this.script);
      this.line = grow(this.line);
      this.column = grow(this.column);
    }
    const key = `${f.scriptId}\0${f.url}`;
    let k = this.scriptIndex.get(key);
    if (k === undefined) {
      k = this.scripts.length;
      this.scripts.push({ url: f.url, scriptId: f.scriptId });
      this.scriptIndex.set(key, k);
    }
    this.script[id] = k + 1;
    this.line[id] = f.lineNumber;
    this.column[id] = f.columnNumber;
  }

  /** The profile to write: with the positions V8 lost filled back; in live mode the fuller of it and the looks kept. */
  finish(atExit: SamplingProfile): SamplingProfile {
    let out = atExit;
    if (this.keepFullest && this.fullest) {
      let bytes = 0;
      walk(atExit.head, (n) => (bytes += n.selfSize));
      if (this.fullest.bytes > bytes) out = this.fullest.profile;
    }
    walk(out.head, (n) => {
      const k = n.id >= 0 && n.id < this.script.length ? this.script[n.id] : 0;
      if (k > 0 && !n.callFrame.url && n.callFrame.lineNumber < 0) {
        const { url, scriptId } = this.scripts[k - 1];
        n.callFrame = {
          functionName: n.callFrame.functionName,
          scriptId,
          url,
          lineNumber: this.line[n.id],
          columnNumber: this.column[n.id],
        };
      }
    });
    // After the positions: an app frame whose script was collected has no url until then.
    dropOwnCalls(out);
    return out;
  }
}
