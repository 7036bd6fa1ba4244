/** A batch job the findings must fit: a 4 MB buffer deflated at level 9, six times, from the main module's top level. */
export const ZLIB_BATCH_LINES = [
  "const zlib = require('node:zlib');",
  'const input = Buffer.alloc(4 * 1024 * 1024);',
  'for (let i = 0; i < input.length; i++) input[i] = (i * 7919) % 251 & (i >> 9);',
  'function compressAll(n) {',
  '  let bytes = 0;',
  '  for (let i = 0; i < n; i++) bytes += zlib.deflateSync(input, { level: 9 }).length;',
  '  return bytes;',
  '}',
  'console.log(compressAll(6));',
];
