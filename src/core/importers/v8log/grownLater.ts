/**
 * V8 takes an object field that was never reassigned for a constant, and throws away the optimized code that relied on
 * it the first time it is: a typed array grown mid-log (the line numbering, the call sites, the timeline) deoptimized
 * the tick reader's hottest functions, each then compiled again (tsc's log: the callers' stack builder three times).
 * A field that will be reassigned is reassigned once when its object is made, before any code is optimized.
 */
export function grownLater(o: object, ...fields: string[]): void {
  const r = o as Record<string, { slice(): unknown }>;
  for (const f of fields) r[f] = r[f].slice() as { slice(): unknown };
}
