import { readFile } from 'node:fs/promises';

export interface Mapping {
  start: number;
  end: number;
  perms: string;
  offset: number;
  path: string;
}

/** Parses `/proc/<pid>/maps` text; lines it does not understand are ignored. */
export function parseProcMaps(text: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)\s+([0-9a-f]+)\s+\S+\s+\d+\s*(.*)$/i.exec(line.trim());
    if (!m) continue;
    out.push({ start: parseInt(m[1], 16), end: parseInt(m[2], 16), perms: m[3], offset: parseInt(m[4], 16), path: m[5].trim() });
  }
  return out;
}

export async function readProcMaps(path: string): Promise<Mapping[] | null> {
  try {
    return parseProcMaps(await readFile(path, 'utf8'));
  } catch {
    return null;
  }
}
