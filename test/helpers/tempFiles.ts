import { test } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes each text to a new file in a temporary folder removed after the test file's tests; returns its path. */
export function tempFiles(prefix: string, ext: string): (text: string | Buffer) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return (text) => {
    const p = join(dir, `f${n++}${ext}`);
    writeFileSync(p, text);
    return p;
  };
}
