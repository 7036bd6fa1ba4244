import * as l10n from '@vscode/l10n';

// A light walk over a pprof `Profile` message before `pprof-format` decodes it. That library reads any
// run of continuation bytes as one number (a 560 000-byte varint decodes for minutes, with BigInt shifts
// quadratic in its length), and makes an object per sample, location id, line and string: the walk
// refuses what it would choke on and counts what it would build, in one pass over the bytes.

/** Field kinds of the messages the decoder reads: a nested message, packed numbers, or anything else (skipped). */
type Kind = 'msg' | 'nums' | 'skip';
interface Schema {
  [field: number]: { kind: Kind; of?: Schema; count?: keyof PprofCounts } | undefined;
}

/** What the decoder would build: each counted element is one JS value or object there. */
export interface PprofCounts {
  samples: number;
  locationIds: number;
  values: number;
  labels: number;
  locations: number;
  lines: number;
  functions: number;
  mappings: number;
  strings: number;
}

const LINE: Schema = {};
const LABEL: Schema = {};
const VALUE_TYPE: Schema = {};
const SAMPLE: Schema = {
  1: { kind: 'nums', count: 'locationIds' },
  2: { kind: 'nums', count: 'values' },
  3: { kind: 'msg', of: LABEL, count: 'labels' },
};
const LOCATION: Schema = { 4: { kind: 'msg', of: LINE, count: 'lines' } };
const PROFILE: Schema = {
  1: { kind: 'msg', of: VALUE_TYPE },
  2: { kind: 'msg', of: SAMPLE, count: 'samples' },
  3: { kind: 'msg', of: {}, count: 'mappings' },
  4: { kind: 'msg', of: LOCATION, count: 'locations' },
  5: { kind: 'msg', of: {}, count: 'functions' },
  6: { kind: 'skip', count: 'strings' },
  11: { kind: 'msg', of: VALUE_TYPE },
  13: { kind: 'nums' },
};

/** The most elements (samples, location ids, lines, strings…) a profile may hold: each is an object in the decoder. */
export const MAX_PPROF_ELEMENTS = 16_000_000;

/** The longest string-table entry: names run to kilobytes; a 100 MB one is a gzip bomb's payload. */
export const MAX_PPROF_STRING = 16 << 20;

class Bad extends Error {}

/**
 * Checks the bytes of a decompressed `Profile` the way `pprof-format` will read them (one-byte tags,
 * wire types 0 and 2, varints of at most 10 bytes, lengths inside their message) and counts its
 * elements. Throws an Error whose message says what is wrong, in one line.
 */
export function scanPprof(buf: Uint8Array): PprofCounts {
  const counts: PprofCounts = {
    samples: 0,
    locationIds: 0,
    values: 0,
    labels: 0,
    locations: 0,
    lines: 0,
    functions: 0,
    mappings: 0,
    strings: 0,
  };
  let total = 0;
  const bump = (k: keyof PprofCounts, n = 1) => {
    counts[k] += n;
    total += n;
    if (total > MAX_PPROF_ELEMENTS)
      throw new Bad(l10n.t('the profile holds more than {0} samples, locations, lines and strings in all', MAX_PPROF_ELEMENTS));
  };
  /** Ends of the varint at `pos` (exclusive), or throws past 10 bytes or past `end`. */
  const varintEnd = (pos: number, end: number): number => {
    for (let i = 0; i < 10; i++, pos++) {
      if (pos >= end) throw new Bad(l10n.t('a number runs past the end of its message at byte {0}', pos));
      if (buf[pos] < 0x80) return pos + 1;
    }
    throw new Bad(l10n.t('a number longer than 10 bytes at byte {0}', pos - 10));
  };
  const numbers = (pos: number, end: number, k: keyof PprofCounts | undefined) => {
    let n = 0;
    while (pos < end) {
      pos = varintEnd(pos, end);
      n++;
    }
    if (k) bump(k, n);
  };
  // Messages nest at most three deep (Profile > Sample > Label): an explicit stack is not needed.
  const message = (pos: number, end: number, schema: Schema): void => {
    while (pos < end) {
      const tag = buf[pos];
      // The decoder reads a tag as one byte: fields past 15 and longer tags would be misread.
      if (tag >= 0x80) throw new Bad(l10n.t('a field tag longer than one byte at byte {0}', pos));
      const wire = tag & 7;
      const f = schema[tag >> 3];
      pos++;
      if (wire === 0) {
        const next = varintEnd(pos, end);
        if (f?.count && f.kind === 'nums') bump(f.count);
        pos = next;
        continue;
      }
      if (wire !== 2) throw new Bad(l10n.t('wire type {0} at byte {1} is not one a profile uses', wire, pos - 1));
      const lenEnd = varintEnd(pos, end);
      let len = 0;
      for (let i = lenEnd - 1; i >= pos; i--) len = len * 128 + (buf[i] & 0x7f);
      if (len > end - lenEnd) throw new Bad(l10n.t('a field of {0} bytes at byte {1} runs past the end of its message', len, pos));
      const start = lenEnd;
      pos = lenEnd + len;
      if (len > MAX_PPROF_STRING && f?.count === 'strings')
        throw new Bad(l10n.t('a string of {0} bytes at byte {1}, longer than any name', len, start));
      if (!f) continue;
      if (f.kind === 'msg') {
        if (f.count) bump(f.count);
        message(start, pos, f.of!);
      } else if (f.kind === 'nums') numbers(start, pos, f.count);
      else if (f.count) bump(f.count);
    }
  };
  try {
    message(0, buf.length, PROFILE);
  } catch (e) {
    if (e instanceof Bad) throw new Error(e.message);
    throw e;
  }
  return counts;
}
