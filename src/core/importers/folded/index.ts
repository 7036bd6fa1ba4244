import { stat } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { ProfileBuilder, ProfileError } from '../../model';
import type { Importer } from '../types';
import { parseFoldedFrame } from './frame';
import { forEachLine } from '../lines';
import { HASH_SEED, hashStep, MISSING, PartTable } from './partTable';
import { doubled } from '../../doubled';

export { parseFoldedFrame } from './frame';

const NUMBER = /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LINE = /^([^]*?\S)\s+(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;
const SEMI = 59;

function sniffFolded(head: Buffer): boolean {
  if (head.includes(0)) return false;
  const lines = head.toString('utf8').split(/\r?\n/);
  // The last line of the head may be cut in the middle (of a character, too).
  const cut = head.length >= 65536 ? lines.pop()! : '';
  if (lines.some((l) => l.includes('\ufffd'))) return false;
  let good = 0;
  for (const l of lines) {
    if (!l.trim() || l.startsWith('#')) continue;
    if (!LINE.test(l.trimEnd())) return false;
    if (++good >= 50) break;
  }
  // A line longer than the head (a deep stack, long names) keeps its weight out of sight: text
  // without control characters is taken as folded, and the load says so if it is not.
  // eslint-disable-next-line no-control-regex
  return good > 0 || (/\S/.test(cut) && !/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(cut.slice(0, -3)));
}

const asciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const numberByte = (c: number) => (c >= 48 && c <= 57) || c === 46 || c === 69 || c === 101 || c === 43 || c === 45;

/**
 * Folds `a;b;c 12` lines into the call tree from their bytes. Sorted folded files (FlameGraph's and
 * inferno's are) repeat the previous line's first frames: the nodes for the shared whole parts are
 * taken from that line instead of being looked up again.
 */
class FoldedStacks {
  good = 0;
  bad = 0;
  perfStyle = false;
  /** Frames named plainly (may repeat an id). */
  readonly plainIds: number[] = [];
  private readonly parts = new PartTable();
  private readonly byText = new Map<string, number>();
  /** The previous stack: its bytes, and for each of its parts the byte offset of its end and the node after it. */
  private prev: Buffer = Buffer.alloc(0);
  private prevStart = 0;
  private prevLen = -1;
  private prevParts = 0;
  private ends = new Int32Array(256);
  private nodes = new Int32Array(256);

  constructor(private readonly b: ProfileBuilder) {}

  line(buf: Buffer, start: number, end: number): void {
    while (end > start && asciiSpace(buf[end - 1])) end--;
    if (end === start || buf[start] === 35 /* # */) return;
    let t = end;
    while (t > start && numberByte(buf[t - 1])) t--;
    let s = t;
    while (s > start && asciiSpace(buf[s - 1])) s--;
    // Other Unicode spaces around the weight: the line is read as text, as a regular expression sees it.
    if (buf[end - 1] >= 0x80 || (s > start && buf[s - 1] >= 0x80)) return this.textLine(buf.toString('utf8', start, end));
    if (s === t || s === start || t === end) return void this.bad++;
    const weight = this.weight(buf, t, end);
    if (weight === undefined) return void this.bad++;
    if (weight === 0) return;
    this.good++;
    this.stack(buf, start, s, weight);
  }

  /** `1e999` parses to Infinity; beyond 2^53 counts are not even exact: damage, not data. */
  private weight(buf: Buffer, start: number, end: number): number | undefined {
    let w = 0;
    let k = start;
    for (; k < end && end - start <= 15; k++) {
      const c = buf[k];
      if (c < 48 || c > 57) break;
      w = w * 10 + (c - 48);
    }
    if (k === end) return w;
    const text = buf.toString('latin1', start, end);
    if (!NUMBER.test(text)) return undefined;
    w = Number(text);
    return w <= Number.MAX_SAFE_INTEGER ? w : undefined;
  }

  private stack(buf: Buffer, start: number, end: number, weight: number): void {
    const len = end - start;
    let node = 0;
    let j = 0;
    let p = start;
    if (this.prevLen >= 0) {
      const prev = this.prev;
      const ps = this.prevStart;
      const n = Math.min(len, this.prevLen);
      let same = 0;
      while (same < n && buf[start + same] === prev[ps + same]) same++;
      const ends = this.ends;
      const endsHere = same === len || buf[start + same] === SEMI;
      while (j < this.prevParts && (ends[j] < same || (ends[j] === same && endsHere))) j++;
      if (j > 0) {
        node = this.nodes[j - 1];
        p = start + ends[j - 1] + 1;
      }
    }
    const tree = this.b.tree;
    // A stack that ends with `;` (or one of only the shared parts) still has its last, empty part to place.
    if (!(j > 0 && p > end)) {
      for (;;) {
        let h = HASH_SEED;
        let q = p;
        for (; q < end; q++) {
          const c = buf[q];
          if (c === SEMI) break;
          h = hashStep(h, c);
        }
        let id = this.parts.find(buf, p, q, h);
        if (id === MISSING) {
          id = this.frameOf(buf.toString('utf8', p, q));
          this.parts.add(buf, p, q, h, id);
        }
        if (id >= 0) node = tree.child(node, id);
        if (j === this.ends.length) this.growParts();
        this.ends[j] = q - start;
        this.nodes[j] = node;
        j++;
        if (q >= end) break;
        p = q + 1;
      }
    }
    tree.addSelf(node, weight);
    this.prev = buf;
    this.prevStart = start;
    this.prevLen = len;
    this.prevParts = j;
  }

  /** A line with non-ASCII bytes next to its weight. */
  private textLine(text: string): void {
    this.prevLen = -1;
    text = text.trimEnd();
    if (!text || text.startsWith('#')) return;
    const m = LINE.exec(text);
    if (!m) return void this.bad++;
    const weight = Number(m[2]);
    if (!(weight <= Number.MAX_SAFE_INTEGER)) return void this.bad++;
    if (!(weight > 0)) return;
    this.good++;
    let node = 0;
    for (const part of m[1].split(';')) {
      let id = this.byText.get(part);
      if (id === undefined) this.byText.set(part, (id = this.frameOf(part)));
      if (id >= 0) node = this.b.tree.child(node, id);
    }
    this.b.tree.addSelf(node, weight);
  }

  private frameOf(part: string): number {
    const parsed = parseFoldedFrame(part);
    if (!parsed) return -1;
    const id = this.b.frame(parsed.frame);
    if (parsed.plain) this.plainIds.push(id);
    if (parsed.perfStyle) this.perfStyle = true;
    return id;
  }

  private growParts(): void {
    this.ends = doubled(this.ends);
    this.nodes = doubled(this.nodes);
  }
}

export const foldedImporter: Importer = {
  format: 'folded',
  sniff: (head) => sniffFolded(head),
  load: async (path, opts) => {
    const size = (await stat(path)).size;
    const b = new ProfileBuilder('folded', { durationMs: null });
    const stacks = new FoldedStacks(b);
    try {
      await forEachLine(path, (buf, start, end) => stacks.line(buf, start, end), {
        onRead: (consumed) => {
          opts.signal?.throwIfAborted();
          opts.onProgress?.(Math.min(1, consumed / (size || 1)));
        },
      });
    } catch (e) {
      if (e instanceof ProfileError || (e as Error).name === 'AbortError') throw e;
      throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
    }
    if (stacks.good === 0) throw new ProfileError(l10n.t('no folded stack lines ("a;b;c 123") found'), path);
    if (stacks.bad) b.warn(l10n.t('{0} lines are not folded stacks and were skipped', stacks.bad));
    const profile = b.build();
    // Collapsed perf stacks name C/C++ functions plainly beside marked JS and kernel frames.
    if (stacks.perfStyle) for (const id of stacks.plainIds) profile.frames[id] = { ...profile.frames[id], category: 'native' };
    opts.onProgress?.(1);
    return profile;
  },
};
