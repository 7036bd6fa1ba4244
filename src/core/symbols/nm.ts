import { spawn } from 'node:child_process';
import { SymbolTable } from './table';

/** Function-like symbol types in `nm` output: text (t/T), weak (w/W), indirect functions (i). */
const CODE_TYPES = new Set(['t', 'T', 'w', 'W', 'i']);

/** Raised when `nm` cannot be run at all (not installed), as opposed to a binary without symbols. */
export class NmMissingError extends Error {}

function run(args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('nm', args, { stdio: ['ignore', 'pipe', 'ignore'], signal });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new NmMissingError('nm not found') : e));
    child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Parses `nm -C -n -S` lines: `addr [size] type name`; symbol versions (`@@GLIBC_2.2.5`) are dropped. */
export function parseNm(text: string): { addr: number; size: number; name: string }[] {
  const rows: { addr: number; size: number; name: string }[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length < 4 || line[0] === ' ') continue;
    const s1 = line.indexOf(' ');
    if (s1 < 0) continue;
    let s2 = line.indexOf(' ', s1 + 1);
    if (s2 < 0) continue;
    let size = 0;
    let type = line.slice(s1 + 1, s2);
    if (type.length > 1) {
      size = parseInt(type, 16);
      const s3 = line.indexOf(' ', s2 + 1);
      if (s3 < 0) continue;
      type = line.slice(s2 + 1, s3);
      s2 = s3;
    }
    if (!CODE_TYPES.has(type)) continue;
    const addr = parseInt(line.slice(0, s1), 16);
    if (!(addr > 0)) continue;
    let name = line.slice(s2 + 1);
    const at = name.indexOf('@');
    if (at > 0 && /@@?[A-Z][\w.]*$/.test(name)) name = name.slice(0, at);
    rows.push({ addr, size: Number.isFinite(size) ? size : 0, name });
  }
  return rows;
}

/** The static symbol table, or the dynamic one when the binary is stripped. */
export async function readSymbols(path: string, signal?: AbortSignal): Promise<SymbolTable> {
  let rows = parseNm(await run(['-C', '-n', '-S', path], signal));
  if (rows.length === 0) rows = parseNm(await run(['-C', '-n', '-S', '-D', path], signal));
  return SymbolTable.fromSorted(rows);
}
