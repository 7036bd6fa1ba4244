// What the corpus test asserts of one run of a real program, each check computed from outside the profiler.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { pathOfUrl } from './agreement';

/** A line `test/corpus/recordProcess.cjs` wrote: a Node process or thread that started. */
export interface Recorded {
  pid: number;
  ppid: number;
  threadId: number;
  argv: string[];
}

export interface JsonFunctionRow {
  name: string;
  file: string | null;
  line: number | null;
  column: number | null;
  category: string;
  self: number;
  total: number;
  /** The binary of a native or shared-library row. */
  lib?: string;
}

export function readRecorded(file: string): Recorded[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Recorded);
}

/** A function's name as it would be written in its source: the last part of `Class.method`, `get x`, `async f`. */
function sourceName(name: string): string | undefined {
  if (name === '(anonymous)' || name === '' || /[[<(]/.test(name)) return undefined;
  const parts = name.split(/[.\s]+/).filter(Boolean);
  return parts[parts.length - 1];
}

const lineCache = new Map<string, string[] | null>();
function linesOf(file: string): string[] | null {
  if (!lineCache.has(file)) {
    let lines: string[] | null = null;
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      lines = null;
    }
    lineCache.set(file, lines);
  }
  return lineCache.get(file)!;
}

/** A method definition: `name(…) {`, `async *[key] (…) {`, `get x() {`. */
const METHOD =
  /^\s*(?!(?:if|for|while|switch|catch|with|return)\b)(?:(?:static|async|get|set)\s+|\*\s*)*(?:\[[^\]]+\]|[\w$#]+)\s*\([^)]*(?:\)\s*\{|,?\s*$)/;

export interface WrongLine {
  name: string;
  file: string;
  line: number;
  text: string;
}

/**
 * Rows naming a line of a file on disk that does not declare the function: the line must hold the function's name,
 * or `function`/`=>`/`class` for a nameless one (line 1 for a module's top-level code).
 */
export function wrongLines(functions: readonly JsonFunctionRow[], isOwn: (file: string) => boolean): WrongLine[] {
  const out: WrongLine[] = [];
  for (const f of functions) {
    const file = f.file && pathOfUrl(f.file);
    if (!file || f.line === null || !isAbsolute(file) || !isOwn(file)) continue;
    const lines = linesOf(file);
    if (!lines) continue;
    const text = lines[f.line - 1] ?? '';
    // A nameless function's `=>` may close a parameter list that spans lines: a destructured one opened by `({` at the
    // line's end (Babel's output: config-chain.js's `.some(({` holds its `=>` 7 lines down).
    const head = lines.slice(f.line - 1, f.line + (/\(\s*\{\s*$/.test(text) ? 15 : 3)).join('\n');
    const n = sourceName(f.name);
    // A named row's line holds its name, or declares a function V8 named from elsewhere (`var f = … function (`, a
    // class's `constructor(`); a nameless one's line (or its parameter list's last line) declares a function.
    // `(` alone on its line opens an arrow function's parameters, one per line (prettier's layout of long ones).
    const declares = (t: string) => /function\b|=>|class\b|constructor\s*\(|^\s*\(\s*$/m.test(t) || METHOD.test(t);
    const ok = n
      ? text.includes(n) || declares(text)
      : f.name === '(anonymous)'
        ? declares(head) || f.line === 1 || text.length > 400
        : true;
    if (!ok) out.push({ name: f.name, file, line: f.line, text: text.trim().slice(0, 100) });
  }
  return out;
}

/** Rows of JSON `functions` that share name, file, line and column with an earlier row. */
export function duplicateRows(functions: readonly JsonFunctionRow[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const f of functions) {
    const k = `${f.name} ${f.file}:${f.line}:${f.column} ${f.lib ?? ''}`;
    if (seen.has(k)) dup.add(k);
    seen.add(k);
  }
  return [...dup];
}

/** The hot functions expected of the program that no row names (with a file, anywhere on a stack). */
export function missingHot(functions: readonly JsonFunctionRow[], expected: readonly string[]): string[] {
  return expected.filter((name) => !functions.some((f) => f.name === name && f.file && f.total > 0));
}

/** `node-flame: warning: …` lines `report` printed that `profile`'s output does not carry (the text after the prefix). */
export function warningsNotShown(reportStderr: string, profileOutput: string): string[] {
  const out: string[] = [];
  for (const l of reportStderr.split('\n')) {
    const m = /^node-flame: warning: (.*)$/.exec(l);
    if (m && !profileOutput.includes(m[1])) out.push(m[1]);
  }
  return out;
}
