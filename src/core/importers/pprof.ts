import { readFile } from 'node:fs/promises';
import type * as Zlib from 'node:zlib';
import { promisify } from 'node:util';
import * as l10n from '@vscode/l10n';
import { Profile as PprofProfile } from 'pprof-format';
import {
  weightUnitOf,
  type Category,
  type Frame,
  type LabelInfo,
  type Profile,
  ProfileBuilder,
  ProfileError,
  type SampleType,
} from '../model';
import { cpuFrame } from './cpuprofile';
import { scanPprof } from './pprofScan';
import type { ImportOptions, Importer } from './types';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlib = () => require('node:zlib') as typeof Zlib;

/** Wire types each field of `perftools.profiles.Profile` may use (13, `comment`, is packed or not). */
const PROFILE_FIELDS: Record<number, readonly number[]> = {
  1: [2],
  2: [2],
  3: [2],
  4: [2],
  5: [2],
  6: [2],
  7: [0],
  8: [0],
  9: [0],
  10: [0],
  11: [2],
  12: [0],
  13: [0, 2],
  14: [0],
  15: [0],
};

const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/**
 * Whether `buf` (the file's start, or all of it when `whole`) reads as a `Profile` message: every
 * field one the message has, with its wire type, and the string table starting with "" as it must.
 * Text and the other binary formats fail within their first bytes.
 */
export function looksLikePprof(buf: Uint8Array, whole: boolean): boolean {
  let pos = 0;
  let fields = 0;
  let strings = 0;
  const varint = (): number | undefined => {
    let v = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) return undefined;
      const b = buf[pos++];
      if (i < 7) v += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) return v;
    }
    return undefined;
  };
  while (pos < buf.length) {
    const tag = varint();
    if (tag === undefined) return !whole && fields >= 2;
    const field = Math.floor(tag / 8);
    if (!PROFILE_FIELDS[field]?.includes(tag & 7)) return false;
    if ((tag & 7) === 0) {
      if (varint() === undefined) return !whole && fields >= 2;
    } else {
      const len = varint();
      if (len === undefined) return !whole && fields >= 2;
      if (field === 6 && strings++ === 0 && len !== 0) return false;
      if (pos + len > buf.length) return !whole && fields >= 2;
      pos += len;
    }
    fields++;
  }
  return fields > 0 && (!whole || strings > 0);
}

function sniffPprof(head: Buffer): boolean {
  if (!isGzip(head)) return looksLikePprof(head, head.length < 65536);
  let body: Buffer;
  try {
    // The head is a prefix of the stream: a sync flush gives what it holds without wanting the rest.
    // 2 KiB of a gzip bomb still inflates to 2 MB: enough to tell a profile, bounded whatever the file.
    body = zlib().gunzipSync(head.subarray(0, 2048), { finishFlush: zlib().constants.Z_SYNC_FLUSH });
  } catch {
    return false;
  }
  return body.length > 0 && looksLikePprof(body, false);
}

/**
 * The most bytes a profile may take once decompressed: real ones are a few MB, while a 1 MB gzip bomb
 * inflates to 1 GB (and the decoder's objects to several times that).
 */
export const MAX_PPROF_BYTES = 128 << 20;
const MB = (n: number) => String(Math.round(n / (1 << 20)));

async function decode(path: string): Promise<PprofProfile> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (e) {
    throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
  }
  if (isGzip(raw)) {
    try {
      raw = await promisify(zlib().gunzip)(raw, { maxOutputLength: MAX_PPROF_BYTES });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw new ProfileError(
          l10n.t('the profile inflates past {0} MB, more than a profile holds (a gzip bomb?)', MB(MAX_PPROF_BYTES)),
          path,
        );
      throw new ProfileError(l10n.t('the gzip stream is damaged or cut short ({0})', (e as Error).message), path);
    }
  } else if (raw.length > MAX_PPROF_BYTES)
    throw new ProfileError(l10n.t('the profile is larger than {0} MB, more than a profile holds', MB(MAX_PPROF_BYTES)), path);
  try {
    scanPprof(raw);
  } catch (e) {
    throw new ProfileError(l10n.t('not a valid pprof profile ({0})', (e as Error).message), path);
  }
  try {
    return PprofProfile.decode(raw);
  } catch (e) {
    throw new ProfileError(l10n.t('not a valid pprof profile ({0})', (e as Error).message), path);
  }
}

/** Names Datadog's and V8's profilers give to time that is not a JavaScript function. */
const SPECIAL: Record<string, Category> = {
  'Garbage Collection': 'gc',
  '(garbage collector)': 'gc',
  '(idle)': 'idle',
  '(program)': 'program',
  'Node.js': 'program',
  'Non JS threads activity': 'program',
  '(external)': 'native',
  '(unaccounted)': 'unaccounted',
};

/** Label keys that name a thread, most telling first (Datadog writes `thread name`, Go `thread`/`goroutine`). */
const THREAD_KEYS = ['thread name', 'thread_name', 'threadName', 'thread', 'thread id', 'thread_id', 'tid'];
/** How many values of one label key the profile keeps for listing. */
const LABEL_VALUES = 50;

/** Picks the sample type: the one asked for, else the file's default, else the last (as Google's pprof does). */
function pickSampleType(types: SampleType[], asked: string | undefined, defaultType: string, path: string): number {
  if (types.length === 0) throw new ProfileError(l10n.t('the pprof profile declares no sample types'), path);
  if (asked !== undefined) {
    const i = types.findIndex((t) => t.type === asked || `${t.type}/${t.unit}` === asked);
    if (i < 0)
      throw new ProfileError(
        l10n.t('no sample type "{0}" in this profile (it has: {1})', asked, types.map((t) => t.type).join(', ')),
        path,
      );
    return i;
  }
  const d = defaultType ? types.findIndex((t) => t.type === defaultType) : -1;
  return d >= 0 ? d : types.length - 1;
}

/** The deepest stack a sample keeps (V8 and Go stop near 10 000 frames). */
export const MAX_STACK = 16384;
/** The most frames all samples' stacks may expand to, and the most call tree nodes they may make. */
export const MAX_EXPANDED_FRAMES = 4_000_000;
export const MAX_PPROF_NODES = 1_000_000;

/** Builds the model from a decoded pprof `Profile`, one sample type weighing the tree. */
export function pprofToModel(p: PprofProfile, opts: ImportOptions = {}, source?: string): Profile {
  const s = p.stringTable.strings;
  const str = (i: number | bigint) => s[Number(i)] ?? '';
  const types = p.sampleType.map((t) => ({ type: str(t.type), unit: str(t.unit) }));
  const ti = pickSampleType(types, opts.sampleType, str(p.defaultSampleType), source ?? '');
  const { unit, scale, known } = weightUnitOf(types[ti]);
  const durationNs = Number(p.durationNanos);
  const b = new ProfileBuilder('pprof', {
    durationMs: durationNs > 0 ? durationNs / 1e6 : null,
    unit,
    sampleTypes: types,
    sampleType: types[ti].type,
    ...(Number(p.timeNanos) > 0 ? { startTime: Number(p.timeNanos) / 1e6 } : {}),
    ...(source ? { source } : {}),
  });
  if (!known)
    b.warn(
      l10n.t(
        'the unit "{0}" of sample type "{1}" is not one Node Flame knows; values are shown as they are',
        types[ti].unit,
        types[ti].type,
      ),
    );
  if (p.periodType && Number(p.period) > 0) {
    const per = weightUnitOf({ type: str(p.periodType.type), unit: str(p.periodType.unit) });
    if (per.unit === 'ms') b.meta.intervalMs = Number(p.period) * per.scale;
  }

  // Function start lines are often missing (Datadog, V8): the first line a function was seen at stands in.
  const firstLine = new Map<number, number>();
  for (const loc of p.location) {
    for (const ln of loc.line) {
      const id = Number(ln.functionId);
      const line = Number(ln.line);
      if (line > 0 && !(firstLine.get(id)! <= line)) firstLine.set(id, line);
    }
  }
  const fnFrame = new Map<number, { frame: number; file: string }>();
  for (const fn of p.function) {
    const id = Number(fn.id);
    const name = str(fn.name) || str(fn.systemName);
    const file = str(fn.filename);
    const line = Number(fn.startLine) > 0 ? Number(fn.startLine) : (firstLine.get(id) ?? 0);
    const special = !file && Object.hasOwn(SPECIAL, name) ? SPECIAL[name] : undefined;
    const f: Frame = special
      ? { name, file: '', line: 0, column: 0, category: special }
      : (cpuFrame({ functionName: name, url: file, lineNumber: line - 1, columnNumber: -1 }) ?? {
          name,
          file,
          line,
          column: 0,
          category: 'native',
        });
    fnFrame.set(id, { frame: b.frame(f), file: f.file });
  }
  const mappings = new Map(p.mapping.map((m) => [Number(m.id), str(m.filename)]));
  // Per (file, line) a small id, so per-sample line counting is array work, not string keys.
  const lineKeys = new Map<string, number>();
  const lineAt: { file: string; line: number }[] = [];
  const lineId = (file: string, line: number) => {
    if (!file || line <= 0) return -1;
    const k = `${line}\0${file}`;
    let id = lineKeys.get(k);
    if (id === undefined) lineKeys.set(k, (id = lineAt.push({ file, line }) - 1));
    return id;
  };
  // Per location: its frames caller-first (the last `line` is the caller the others were inlined into) and the line each ran.
  // Location ids are usually 1..n: an array finds them faster than a Map on the per-frame path.
  const locs: ({ frames: number[]; lines: number[] } | undefined)[] = [];
  const farLocs = new Map<number, { frames: number[]; lines: number[] }>();
  for (const loc of p.location) {
    const frames: number[] = [];
    const lines: number[] = [];
    for (let i = loc.line.length - 1; i >= 0; i--) {
      const fr = fnFrame.get(Number(loc.line[i].functionId));
      if (!fr) continue;
      frames.push(fr.frame);
      lines.push(lineId(fr.file, Number(loc.line[i].line)));
    }
    if (frames.length === 0) {
      // Not symbolized: the address and the binary it is in are all there is.
      const lib = mappings.get(Number(loc.mappingId)) ?? '';
      const category: Category = /\.so(\.|$)/.test(lib) ? 'shared-lib' : 'native';
      frames.push(
        b.frame({ name: `0x${BigInt(loc.address).toString(16)}`, file: '', line: 0, column: 0, category, ...(lib ? { lib } : {}) }),
      );
      lines.push(-1);
    }
    const id = Number(loc.id);
    if (id < 4 * p.location.length + 16) locs[id] = { frames, lines };
    else farLocs.set(id, { frames, lines });
  }
  const lineSelf = new Float64Array(lineAt.length);
  const lineTotal = new Float64Array(lineAt.length);
  const lineSeen = new Int32Array(lineAt.length).fill(-1);

  const labels = new Map<string, Map<string, number>>();
  const labelValue = (l: { str: number | bigint; num: number | bigint }) => (Number(l.str) ? str(l.str) : String(l.num));
  for (const smp of p.sample) {
    const w = Number(smp.value[ti] ?? 0);
    for (const l of smp.label) {
      const k = str(l.key);
      let m = labels.get(k);
      if (!m) labels.set(k, (m = new Map()));
      const v = labelValue(l);
      m.set(v, (m.get(v) ?? 0) + w * scale);
    }
  }
  const threadKey = THREAD_KEYS.find((k) => labels.has(k));
  const filters = Object.entries(opts.labels ?? {});

  const stack: number[] = [];
  let missing = 0;
  // Locations can hold many inlined lines and be listed many times a sample: 15 KB of pprof expands to
  // billions of frames. Stacks past MAX_STACK keep their callers; past the budget, samples are left out.
  let budget = MAX_EXPANDED_FRAMES;
  let cut = 0;
  let dropped = 0;
  for (let si = 0; si < p.sample.length; si++) {
    const smp = p.sample[si];
    const w = Number(smp.value[ti] ?? 0) * scale;
    if (!(w > 0) || !Number.isFinite(w)) continue;
    let thread: string | undefined;
    let keep = true;
    for (const [k, want] of filters) keep &&= smp.label.some((l) => str(l.key) === k && labelValue(l) === want);
    if (!keep) continue;
    if (threadKey) {
      const l = smp.label.find((x) => str(x.key) === threadKey);
      thread = l ? labelValue(l) : undefined;
    }
    if (budget <= 0 || b.tree.count >= MAX_PPROF_NODES) {
      dropped++;
      continue;
    }
    stack.length = 0;
    let leafLine = -1;
    // location_id lists the leaf first.
    for (let i = smp.locationId.length - 1; i >= 0; i--) {
      const id = Number(smp.locationId[i]);
      const loc = locs[id] ?? farLocs.get(id);
      if (!loc) {
        missing++;
        continue;
      }
      if (stack.length + loc.frames.length > MAX_STACK) {
        cut++;
        break;
      }
      for (let j = 0; j < loc.frames.length; j++) {
        stack.push(loc.frames[j]);
        const line = loc.lines[j];
        leafLine = line;
        // A line counts once a sample, however often recursion passes it.
        if (line < 0 || lineSeen[line] === si) continue;
        lineSeen[line] = si;
        lineTotal[line] += w;
      }
    }
    if (leafLine >= 0) lineSelf[leafLine] += w;
    budget -= stack.length + 1;
    b.sample(stack, w, unit === 'ms' ? w : 0, thread);
  }
  if (cut) b.warn(l10n.t('{0} samples have stacks deeper than {1} frames; their deepest frames are left out', cut, MAX_STACK));
  if (dropped)
    b.warn(
      l10n.t(
        '{0} samples are left out: the profile expands to more than {1} frames or {2} call tree nodes',
        dropped,
        MAX_EXPANDED_FRAMES,
        MAX_PPROF_NODES,
      ),
    );
  for (let id = 0; id < lineAt.length; id++)
    if (lineTotal[id] > 0) b.lineHit(lineAt[id].file, lineAt[id].line, lineSelf[id], lineTotal[id]);
  if (missing) b.warn(l10n.t('{0} stack entries point at locations the profile does not define; they are left out', missing));

  const info: LabelInfo[] = [...labels].map(([key, values]) => ({
    key,
    distinct: values.size,
    values: [...values]
      .sort((x, y) => y[1] - x[1])
      .slice(0, LABEL_VALUES)
      .map(([value, weight]) => ({ value, weight })),
  }));
  if (info.length) b.meta.labels = info;
  return b.build();
}

export const pprofImporter: Importer = {
  format: 'pprof',
  sniff: (head) => sniffPprof(head),
  load: async (path, opts) => {
    opts.signal?.throwIfAborted();
    const p = await decode(path);
    opts.signal?.throwIfAborted();
    const profile = pprofToModel(p, opts, path);
    opts.onProgress?.(1);
    return profile;
  },
};
