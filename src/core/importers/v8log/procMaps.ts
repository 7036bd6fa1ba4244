import { readNamedText } from '../../namedFiles';

/** A process's maps are some KB; a file far larger than this is not one. */
const MAX_MAPS_BYTES = 64 * 1024 * 1024;

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
    return parseProcMaps(await readNamedText(path, { maxBytes: MAX_MAPS_BYTES }));
  } catch {
    return null;
  }
}
