// Character classes tested by code unit, where a regular expression over a long name would backtrack
// (quadratic: seconds for one 64K-character name).

/** Whitespace as JavaScript's `\s` knows it. */
export const isSpaceChar = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0xfeff ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000;

/** A character of an ASCII identifier: `[A-Za-z0-9_$]`. */
export const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;

/** Direction controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI): an RLO in a name shows the rest of a label reversed. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
export const BIDI_CONTROLS = new RegExp(`[${BIDI}]`, 'g');
/** Whether a text holds a direction control (no `g`: `test` keeps no state). */
export const HAS_BIDI = new RegExp(`[${BIDI}]`);
/** C0, DEL, C1 and the direction controls. */
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');

/**
 * Text from a profile as a terminal or a CI log may show it: control characters (C0, DEL, C1) as `\xHH`
 * and direction controls as `\uHHHH`, so a name can neither drive the terminal, start a line of its own
 * (a `::` workflow command) nor reverse what follows it.
 */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}

/** A name for display: its direction controls shown as `\uHHHH` (everything else kept). */
export const withoutBidi = (s: string): string => s.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
