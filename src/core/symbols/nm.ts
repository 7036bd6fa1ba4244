import type * as ChildProcess from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { SymbolTable, SymbolTableBuilder } from './table';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = () => require('node:child_process') as typeof ChildProcess;

/** Function-like symbol types in `nm` output: text (t/T), weak (w/W), indirect functions (i). */
const CODE_TYPES = new Set(['t', 'T', 'w', 'W', 'i']);

/** Raised when `nm` cannot be run at all (not installed), as opposed to a binary without symbols. */
export class NmMissingError extends Error {}

export interface NmRow {
  addr: number;
  size: number;
  name: string;
}

/** One `nm -C -n -S` line: `addr [size] type name`; symbol versions (`@@GLIBC_2.2.5`) are dropped. Null for non-code. */
export function parseNmLine(line: string): NmRow | null {
  if (line.length < 4 || line[0] === ' ') return null;
  const s1 = line.indexOf(' ');
  if (s1 < 0) return null;
  let s2 = line.indexOf(' ', s1 + 1);
  if (s2 < 0) return null;
  let size = 0;
  let type = line.slice(s1 + 1, s2);
  if (type.length > 1) {
    size = parseInt(type, 16);
    const s3 = line.indexOf(' ', s2 + 1);
    if (s3 < 0) return null;
    type = line.slice(s2 + 1, s3);
    s2 = s3;
  }
  if (!CODE_TYPES.has(type)) return null;
  const addr = parseInt(line.slice(0, s1), 16);
  if (!(addr > 0)) return null;
  let name = line.slice(s2 + 1);
  const at = name.indexOf('@');
  if (at > 0 && /@@?[A-Z][\w.]*$/.test(name)) name = name.slice(0, at);
  return { addr, size: Number.isFinite(size) ? size : 0, name };
}

export function parseNm(text: string): NmRow[] {
  const rows: NmRow[] = [];
  for (const line of text.split('\n')) {
    const r = parseNmLine(line);
    if (r) rows.push(r);
  }
  return rows;
}

/** `nm` runs at most this many at once: a log may list hundreds of libraries. */
export const NM_POOL_SIZE = Math.max(1, availableParallelism());
/**
 * `nm` runs at this niceness: a log naming hundreds of libraries kept both cores of a 2-core machine busy with
 * `nm` for seconds, and typing in the editor meanwhile took 305 ms to show (< 200 ms otherwise). Niced, it waits
 * only while something else (the editor, the app) wants the CPU.
 */
const NM_NICE = 10;
/** An `nm` that has not finished by then (a huge or hostile binary) is killed; its library goes without symbols. */
const NM_TIMEOUT_MS = 120_000;

let running = 0;
const waiting: (() => void)[] = [];

async function inPool<T>(job: () => Promise<T>): Promise<T> {
  if (running >= NM_POOL_SIZE) await new Promise<void>((r) => waiting.push(r));
  else running++;
  try {
    return await job();
  } finally {
    // The slot passes straight to the next waiter, so `running` never overshoots.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Runs `nm` and folds its output into a table as it streams: node's symbols are ~15 MB of text,
 * which held whole (and split into 100k strings) cost more memory than the profile being read.
 */
function run(args: string[], signal?: AbortSignal): Promise<SymbolTable> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn('nm', args, { stdio: ['ignore', 'pipe', 'ignore'], signal });
    try {
      if (child.pid) setPriority(child.pid, NM_NICE);
    } catch {
      // gone already, or not allowed here: it runs at our priority
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nm did not finish within ${NM_TIMEOUT_MS / 1000} s`));
    }, NM_TIMEOUT_MS);
    const table = new SymbolTableBuilder();
    const decoder = new StringDecoder('utf8');
    let carry = '';
    const feed = (text: string) => {
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const r = parseNmLine(start === 0 ? carry + text.slice(0, nl) : text.slice(start, nl));
        if (r) table.add(r.addr, r.size, r.name);
        start = nl + 1;
      }
      carry = start === 0 ? carry + text : text.slice(start);
    };
    child.stdout.on('data', (b: Buffer) => feed(decoder.write(b)));
    child.on(
      'error',
      (e: NodeJS.ErrnoException) => (clearTimeout(timer), reject(e.code === 'ENOENT' ? new NmMissingError('nm not found') : e)),
    );
    child.on('close', () => {
      clearTimeout(timer);
      feed(decoder.end() + '\n');
      resolve(table.build());
    });
  });
}

/** The static symbol table, or the dynamic one when the binary is stripped (`symtab: false` says it is). */
export async function readSymbols(path: string, signal?: AbortSignal, symtab?: boolean): Promise<SymbolTable> {
  return inPool(async () => {
    if (symtab === false) return run(['-C', '-n', '-S', '-D', path], signal);
    const t = await run(['-C', '-n', '-S', path], signal);
    return t.size > 0 ? t : run(['-C', '-n', '-S', '-D', path], signal);
  });
}
