import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { regularFile } from '../../namedFiles';

/** `isolate-0x<address>-<pid>[-<n>]-v8[-<tid>].log`, as Node names `--prof` logs. */
const NAME = /^isolate-(0x[0-9a-f]+)-(\d+)(?:-(\d+))?-v8(?:-\d+)?\.log$/i;

export function parseLogName(path: string): { isolate: string; pid: number } | null {
  const m = NAME.exec(basename(path));
  return m ? { isolate: m[1], pid: +m[2] } : null;
}

/** The log itself plus the other isolates' logs of the same process in its folder. */
export async function siblingLogs(path: string): Promise<string[]> {
  const me = parseLogName(path);
  if (!me) return [path];
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return [path];
  }
  const out = [path];
  for (const n of names.sort()) {
    const p = parseLogName(n);
    // A FIFO or device with a log's name would block or never end: only regular files join.
    if (p && p.pid === me.pid && n !== basename(path) && (await regularFile(join(dirname(path), n)))) out.push(join(dirname(path), n));
  }
  return out;
}

export function procMapsBeside(path: string): string | null {
  const me = parseLogName(path);
  return me ? join(dirname(path), `proc-maps-${me.pid}.txt`) : null;
}
