/**
 * mulberry32, a small seeded generator: the same seed gives the same numbers on every run, which the HTML
 * export's thinning (the same profile thins the same way) and the fuzzer (a failing case can be replayed) need.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
