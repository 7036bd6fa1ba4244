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
