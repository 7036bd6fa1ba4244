/**
 * A copy of `a` twice as long (or `atLeast`, if longer): how the readers' typed arrays grow. Kept out of the loops
 * that fill them, so the hot code stays small for the optimizing compiler.
 */
export function doubled(a: Int32Array, atLeast = 0): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(atLeast, a.length * 2));
  b.set(a);
  return b;
}
