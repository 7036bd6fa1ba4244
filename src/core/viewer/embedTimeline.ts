import * as l10n from '@vscode/l10n';
import type { Timeline } from '../model/timeline';
import { sampleCount, sampleTime } from '../model/mergedTimes';
import { seededRandom } from '../seededRandom';

/**
 * The per-sample timeline as the offline page carries it: per sample its leaf node, then the steps between
 * sample times in whole microseconds, then (when samples weigh other than 1) the weights, all as LEB128
 * varints, gzipped (the exporter) and base64 (JSON-safe). The page inflates it with the browser's own
 * DecompressionStream: no library, no network, nothing the page's CSP forbids.
 */
export interface EmbeddedTimeline {
  /** Samples encoded (after thinning, see `oneIn`). */
  samples: number;
  /** The first sample's time (ms); the others follow it in µs steps. */
  t0: number;
  /** How the weights follow the steps: 'int' varints, 'f64' little-endian doubles; absent, every sample weighs 1. */
  weights?: 'int' | 'f64';
  /** Set when the profile had more samples than a page carries: about one in `oneIn` was kept, weighing that many. */
  oneIn?: number;
  /** What the page says about the thinning (in the exporter's language). */
  note?: string;
  /** base64 of the gzipped varints. */
  data: string;
}

/** More samples than this and the page keeps a random share of them (~1.3 bytes a sample once gzipped: a few MB). */
export const MAX_EMBEDDED_SAMPLES = 2_000_000;

class Bytes {
  buf = new Uint8Array(1 << 16);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  varint(v: number): void {
    this.room(8);
    // Past 2^31 bit operations would wrap: divide instead.
    while (v >= 128) {
      this.buf[this.length++] = v % 128 | 128;
      v = Math.floor(v / 128);
    }
    this.buf[this.length++] = v;
  }
  f64(v: number): void {
    this.room(8);
    new DataView(this.buf.buffer).setFloat64(this.length, v, true);
    this.length += 8;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/**
 * The timeline as varints, with its header (less `data`: the caller gzips and base64s the bytes). Over `max`
 * samples, each is kept with chance 1/oneIn and then weighs oneIn times as much: a sample of the samples, so
 * the activity graph keeps its shape and a range's shares stay estimates of the real ones.
 */
export function packTimeline(tl: Timeline, max = MAX_EMBEDDED_SAMPLES): { header: Omit<EmbeddedTimeline, 'data'>; bytes: Uint8Array } {
  // Packed times (mergedTimes.ts) are read where they are, not unpacked.
  const n = sampleCount(tl);
  let keep: number[] | undefined;
  let oneIn: number | undefined;
  if (n > max) {
    oneIn = Math.ceil(n / max);
    const next = seededRandom(n);
    keep = [];
    for (let i = 0; i < n; i++) if (next() * oneIn < 1) keep.push(i);
  }
  const count = keep ? keep.length : n;
  const at = (k: number) => (keep ? keep[k] : k);
  const w = tl.weights;
  const weightOf = (i: number) => (w ? w[i] : 1) * (oneIn ?? 1);
  let weights: 'int' | 'f64' | undefined;
  if (w || oneIn) {
    weights = 'int';
    for (let k = 0; k < count; k++) {
      const v = weightOf(at(k));
      if (!(Number.isSafeInteger(v) && v >= 0)) {
        weights = 'f64';
        break;
      }
    }
  }
  const out = new Bytes();
  for (let k = 0; k < count; k++) out.varint(tl.nodes[at(k)]);
  const t0 = count ? sampleTime(tl, at(0)) : 0;
  // Steps between rounded times: they add up to the rounded time of each sample, so no error piles up.
  let prev = 0;
  for (let k = 0; k < count; k++) {
    const us = Math.max(prev, Math.round((sampleTime(tl, at(k)) - t0) * 1000));
    out.varint(us - prev);
    prev = us;
  }
  if (weights === 'int') for (let k = 0; k < count; k++) out.varint(weightOf(at(k)));
  else if (weights === 'f64') for (let k = 0; k < count; k++) out.f64(weightOf(at(k)));
  const header: Omit<EmbeddedTimeline, 'data'> = { samples: count, t0, ...(weights ? { weights } : {}) };
  if (oneIn)
    Object.assign(header, {
      oneIn,
      note: l10n.t(
        'This page carries {0} of the profile’s {1} samples (about one in {2}, chosen at random): the timeline and the figures of a selected range are estimates.',
        count.toLocaleString('en-US'),
        n.toLocaleString('en-US'),
        oneIn,
      ),
    });
  return { header, bytes: out.bytes() };
}

/** The timeline back from its varints; throws when they do not make `header.samples` samples of nodes below `nodeCount`. */
export function unpackTimeline(header: Omit<EmbeddedTimeline, 'data'>, bytes: Uint8Array, nodeCount: number): Timeline {
  const n = header.samples;
  let pos = 0;
  const varint = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new Error('embedded timeline: cut short');
      const b = bytes[pos++];
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
  };
  const nodes = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = varint();
    if (v >= nodeCount) throw new Error('embedded timeline: bad node');
    nodes[i] = v;
  }
  const times = new Float64Array(n);
  let us = 0;
  for (let i = 0; i < n; i++) {
    us += varint();
    times[i] = header.t0 + us / 1000;
  }
  let weights: Float64Array | undefined;
  if (header.weights === 'int') {
    weights = new Float64Array(n);
    for (let i = 0; i < n; i++) weights[i] = varint();
  } else if (header.weights === 'f64') {
    if (pos + n * 8 > bytes.length) throw new Error('embedded timeline: cut short');
    const view = new DataView(bytes.buffer, bytes.byteOffset + pos, n * 8);
    weights = new Float64Array(n);
    for (let i = 0; i < n; i++) weights[i] = view.getFloat64(i * 8, true);
  }
  return { nodes, times, ...(weights ? { weights } : {}) };
}

/** In the page (or any runtime with the web's streams): the embedded timeline, inflated and unpacked. */
export async function readEmbeddedTimeline(e: EmbeddedTimeline, nodeCount: number): Promise<Timeline> {
  const text = atob(e.data);
  // A plain loop: Uint8Array.from with a map function takes ten times as long on a megabyte.
  const zipped = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) zipped[i] = text.charCodeAt(i);
  const stream = new Blob([zipped]).stream().pipeThrough(new DecompressionStream('gzip'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return unpackTimeline(e, bytes, nodeCount);
}
