// UI state settles a moment after the action that changes it: a check reads it again until it holds,
// and fails with the last value read (never a value read once and asserted later).

/**
 * Calls `read` until `check` accepts its value (returns without throwing), then returns that value.
 * After `timeoutMs` the last error of `check` (or of `read`) is thrown.
 */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => void, timeoutMs = 15_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let error: unknown;
    try {
      const value = await read();
      check(value);
      return value;
    } catch (e) {
      error = e;
    }
    if (Date.now() > deadline) throw error;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads `get` every 250 ms (up to 20 s) until `ok` holds; asserts it then, with `what` and the last value. */
export async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await get();
  for (let i = 0; i < 80 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await get();
  }
  if (!ok(v)) throw new Error(`${what}: ${JSON.stringify(v).slice(0, 400)}`);
  return v;
}
