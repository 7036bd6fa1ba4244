import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** `'…'` for a POSIX shell: the only character that needs care inside single quotes is the quote itself. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A folder holding a `node` that runs the real node with the profiler's flags first. Put first on
 * PATH, it catches every `node` a command starts by name: npm and its scripts, shebang CLIs
 * (`#!/usr/bin/env node`), nodemon's restarts. Flags Node refuses in NODE_OPTIONS (`--prof`,
 * `--cpu-prof`, `--logfile`) reach those processes this way, and children they fork inherit them
 * through `process.execArgv`. POSIX only: the shim is a shell script with fixed words, no user input.
 */
export function writeNodeShim(realNode: string, flags: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'node-flame-shim-'));
  const file = join(dir, 'node');
  writeFileSync(file, `#!/bin/sh\nexec ${[realNode, ...flags].map(shellQuote).join(' ')} "$@"\n`);
  chmodSync(file, 0o755);
  return dir;
}

export function removeNodeShim(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** PATH with `dir` first. */
export function pathWithFirst(dir: string, path = process.env.PATH ?? ''): string {
  return path ? `${dir}${delimiter}${path}` : dir;
}

/** NODE_OPTIONS plus `--require <preload>`, quoted as Node's NODE_OPTIONS parser reads it. */
export function nodeOptionsWithPreload(preloadPath: string, existing = ''): string {
  const req = `--require ${JSON.stringify(preloadPath)}`;
  return existing.trim() ? `${existing.trim()} ${req}` : req;
}
