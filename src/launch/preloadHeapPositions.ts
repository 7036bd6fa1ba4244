import type * as Inspector from 'node:inspector';
import { atMainModuleEnd } from './preloadModuleHooks';

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
 * V8 gives a sample's function its file and line only while its script lives: once the script is
 * collected (a batch program's main module after its last line) the profile taken at exit names
 * `leak` with no file and line -1. A node keeps its id for the whole sampling, so a look taken while
 * the main module's script lives (at its last line; the inspector's look runs a full GC first, so not
 * every second) remembers each node's position, and the profile written at exit gets back those it lost.
 *
 * Live mode also keeps that look when it holds more than the exit's: a batch program's data dies with
 * its main module, so at exit (after a full GC) nothing of it is left.
 */
export class HeapPositions {
  private readonly frames = new Map<number, CallFrame>();
  private fullest: { profile: SamplingProfile; bytes: number } | undefined;

  constructor(
    private readonly session: Inspector.Session,
    private readonly keepFullest: boolean,
  ) {
    atMainModuleEnd(() => this.look(keepFullest));
  }

  /** Remembers the position of every node V8 still knows; in-process calls answer synchronously. */
  look(candidate: boolean): void {
    this.session.post('HeapProfiler.getSamplingProfile', (err, r) => {
      if (err) return;
      const profile = r.profile as unknown as SamplingProfile;
      let bytes = 0;
      walk(profile.head, (n) => {
        bytes += n.selfSize;
        if (n.callFrame.url && n.callFrame.lineNumber >= 0) this.frames.set(n.id, n.callFrame);
      });
      if (candidate && bytes > (this.fullest?.bytes ?? 0)) this.fullest = { profile, bytes };
    });
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
      const known = this.frames.get(n.id);
      if (known && !n.callFrame.url && n.callFrame.lineNumber < 0) n.callFrame = { ...known, functionName: n.callFrame.functionName };
    });
    return out;
  }
}
