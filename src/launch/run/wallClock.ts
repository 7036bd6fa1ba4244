/**
 * The wall clock (epoch ms) at this very instant, to a few microseconds: `Date.now()` counts whole milliseconds, so
 * the next tick is waited for (under 1 ms, at a process's start) and is the instant. `performance.timeOrigin` is
 * no substitute: Node samples it apart from the monotonic origin, and processes of one run were seen 3 ms apart.
 */
export function wallClockEdge(): number {
  const before = Date.now();
  let now = before;
  while (now === before) now = Date.now();
  return now;
}
