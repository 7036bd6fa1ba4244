/**
 * The wall clock (epoch ms) at this very instant, to a few microseconds: `Date.now()` counts whole milliseconds, so
 * the next tick is waited for (under 1 ms, at a process's start; a few on a busy machine) and is the instant. `performance.timeOrigin` is
 * no substitute: Node samples it apart from the monotonic origin, and processes of one run were seen 3 ms apart.
 */
export function wallClockEdge(): number {
  for (let tries = 0; ; tries++) {
    const before = Date.now();
    let now = before;
    let at = performance.now();
    let last = at;
    while (now === before) {
      last = at;
      at = performance.now();
      now = Date.now();
    }
    // Seen between two reads this close, the tick is this instant; a thread descheduled meanwhile (a busy machine)
    // saw it up to a millisecond late: the next tick then.
    if (at - last < 0.05 || tries >= 4) return now;
  }
}
