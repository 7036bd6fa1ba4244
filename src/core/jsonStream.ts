/**
 * `JSON.stringify(value)` handed out in pieces of about `chunk` characters: a heap profile of a compiler (340 000
 * nodes, 85 MB of JSON) as one string costs the string, the builder's growing copies and its UTF-8 bytes at once,
 * at the app's exit, on top of the app's own memory. Plain JSON data only (what `JSON.parse` gives): objects, arrays,
 * strings, numbers, booleans, null; undefined members are left out as JSON.stringify leaves them.
 */
export function streamJson(value: unknown, put: (piece: string) => void, chunk = 1 << 20): void {
  let buf = '';
  const add = (s: string): void => {
    buf += s;
    if (buf.length >= chunk) {
      put(buf);
      buf = '';
    }
  };
  // An explicit stack: a profile's tree may be deeper than the call stack allows.
  const todo: unknown[] = [value];
  const CLOSE_ARRAY = Symbol('close array');
  const CLOSE_OBJECT = Symbol('close object');
  const COMMA = Symbol('comma');
  const KEY = Symbol('key');
  while (todo.length) {
    const v = todo.pop();
    if (v === CLOSE_ARRAY) add(']');
    else if (v === CLOSE_OBJECT) add('}');
    else if (v === COMMA) add(',');
    else if (v === KEY) add(`${JSON.stringify(todo.pop())}:`);
    else if (Array.isArray(v)) {
      add('[');
      todo.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) {
        // As JSON.stringify: a hole, undefined or a function in an array is null.
        const item = v[i] === undefined || typeof v[i] === 'function' ? null : v[i];
        todo.push(item);
        if (i > 0) todo.push(COMMA);
      }
    } else if (v !== null && typeof v === 'object') {
      add('{');
      todo.push(CLOSE_OBJECT);
      const keys = Object.keys(v).filter((k) => {
        const m = (v as Record<string, unknown>)[k];
        return m !== undefined && typeof m !== 'function' && typeof m !== 'symbol';
      });
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push((v as Record<string, unknown>)[keys[i]]);
        todo.push(keys[i], KEY);
        if (i > 0) todo.push(COMMA);
      }
    } else add(JSON.stringify(v) ?? 'null');
  }
  if (buf) put(buf);
}
