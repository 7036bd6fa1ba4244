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
 * The preload's own inspector calls allocate while V8 still samples: the profile V8 builds for stopSampling (or a
 * look) is made of objects alive when it is taken, so in live mode it showed as `post` (node:inspector) with 15–26 %
 * of a small program's bytes (seen in CI). Those are the profiler's bytes, not the app's: the inspector frames called
 * by this bundle's own code go, with the samples that name them. An app's own inspector calls are not under our frames.
 */
export function dropOwnCalls(profile: SamplingProfile): void {
  const own = new Set([__filename, pathToFileURL(__filename).href]);
  const dropped = new Set<number>();
  walk(profile.head, (n) => {
    if (!own.has(n.callFrame.url) || !n.children) return;
    n.children = n.children.filter((c) => {
      if (c.callFrame.url !== 'node:inspector') return true;
      walk(c, (d) => dropped.add(d.id));
      return false;
    });
  });
  if (dropped.size && Array.isArray(profile.samples))
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
    dropOwnCalls(out);
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
    return out;
  }
}
