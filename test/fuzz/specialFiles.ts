// The "special files" mutation: a profile that names FIFOs, devices, folders and links to them as the
// paths it makes the importer read (a library to run nm on, a script whose source map is looked up, a
// script naming such a map). The files are made once per process in a private temporary folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedFormat } from './mutate';

type Rand = () => number;

let made: string[] | null = null;

/** Paths that are no regular file, or scripts naming one as their source map; made on first use. */
export function specialPaths(): string[] {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'nf-fuzz-special-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, 'folder'));
  symlinkSync('/dev/zero', join(dir, 'zero'));
  symlinkSync('/dev/stdin', join(dir, 'stdin'));
  symlinkSync(fifo, join(dir, 'fifo-link'));
  const scripts = ['fifo', 'folder', 'zero', 'stdin'].map((target) => {
    const p = join(dir, `app-${target}.js`);
    writeFileSync(p, `function f() {}\n//# sourceMappingURL=${target}\n`);
    return p;
  });
  // A script whose own `.map` beside it is a FIFO.
  const beside = join(dir, 'beside.js');
  writeFileSync(beside, 'function f() {}\n');
  execFileSync('mkfifo', [`${beside}.map`]);
  made = [
    fifo,
    join(dir, 'folder'),
    join(dir, 'zero'),
    join(dir, 'stdin'),
    join(dir, 'fifo-link'),
    ...scripts,
    beside,
    '/dev/zero',
    '/dev/null',
    '/dev/stdin',
    '/proc/self/fd/0',
    '/',
  ];
  return made;
}

/** Puts a special path where the format makes the importer read it; `s` is the file as latin1 code units. */
export function specialFileMutation(r: Rand, format: SeedFormat, s: string, ops: string[]): string {
  const paths = specialPaths();
  const p = paths[Math.floor(r() * paths.length)];
  ops.push(`special-file:${p.split('/').pop() || '/'}`);
  const ls = s.split('\n');
  const at = Math.floor(r() * ls.length);
  if (format === 'v8log') {
    // As a library (read for its ELF headers, then nm), and as the script of a sampled function.
    const lines = [
      `shared-library,${p},0x7f1000000000,0x7f1000100000,0`,
      `code-creation,JS,10,100,0x7f2000000000,256,f ${p}:1:1,0x7f3000000000,~`,
      'tick,0x7f1000000010,5000,0,0x0,0',
      'tick,0x7f2000000010,5001,0,0x0,0',
    ];
    ls.splice(Math.max(1, at), 0, ...lines);
    return ls.join('\n');
  }
  if (format === 'cpuprofile') {
    const urls = [...s.matchAll(/"url":"[^"]*"/g)];
    if (!urls.length) return s;
    const m = urls[Math.floor(r() * urls.length)];
    return s.slice(0, m.index) + `"url":"file://${p}"` + s.slice(m.index! + m[0].length);
  }
  if (format === 'perf') {
    const frames = ls.map((l, i) => (l.startsWith('\t') ? i : -1)).filter((i) => i >= 0);
    if (!frames.length) return s;
    ls[frames[Math.floor(r() * frames.length)]] = `\t    7f2000000010 JS:*f ${p}:1:1 (/tmp/perf-1.map)`;
    return ls.join('\n');
  }
  ls.splice(at, 0, `main /x.js:1:1;f ${p}:1:1 3`);
  return ls.join('\n');
}
