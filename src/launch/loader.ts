import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `auto` looks in node_modules; `none` runs the file with plain node (e.g. Node ≥ 22.6 type stripping). */
export type LoaderSetting = 'auto' | 'ts-node' | 'tsx' | 'none';

export interface FoundLoader {
  name: 'ts-node' | 'tsx';
  /** Node args that load it, with the module resolved to an absolute path so the app's cwd does not matter. */
  args: string[];
  packageDir?: string;
}

/** The closest `node_modules/<name>` from `startDir` upwards. */
export function findPackageDir(name: string, startDir: string): string | undefined {
  let d = startDir;
  for (;;) {
    const p = join(d, 'node_modules', name);
    if (existsSync(join(p, 'package.json'))) return p;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

function tsNodeArgs(dir: string | undefined): string[] {
  const file = dir && join(dir, 'register', 'transpile-only.js');
  return ['-r', file && existsSync(file) ? file : 'ts-node/register/transpile-only'];
}

function tsxArgs(dir: string | undefined): string[] {
  // --import resolves bare names from the app's cwd; a file URL of tsx's ESM entry works from anywhere.
  if (dir) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: unknown };
      const dot = (pkg.exports as Record<string, unknown> | undefined)?.['.'];
      const entry = typeof dot === 'string' ? dot : pickImport(dot);
      if (entry && existsSync(join(dir, entry))) return ['--import', pathToFileURL(join(dir, entry)).href];
    } catch {
      // an unreadable package.json: fall back to the bare name
    }
  }
  return ['--import', 'tsx'];
}

function pickImport(cond: unknown): string | undefined {
  if (typeof cond === 'string') return cond;
  if (!cond || typeof cond !== 'object') return undefined;
  const c = cond as Record<string, unknown>;
  return pickImport(c.import) ?? pickImport(c.node) ?? pickImport(c.default);
}

/**
 * The TypeScript loader for a program: the configured one, else tsx or ts-node found in node_modules
 * above `startDir` (tsx first: it handles both ESM and CommonJS). Undefined when none is installed.
 */
export function findLoader(startDir: string, setting: LoaderSetting = 'auto', preferred?: 'ts-node' | 'tsx'): FoundLoader | undefined {
  if (setting === 'none') return undefined;
  const order: ('ts-node' | 'tsx')[] = setting !== 'auto' ? [setting] : preferred === 'ts-node' ? ['ts-node', 'tsx'] : ['tsx', 'ts-node'];
  for (const name of order) {
    const dir = findPackageDir(name, startDir);
    if (dir || setting !== 'auto') {
      return { name, packageDir: dir, args: name === 'tsx' ? tsxArgs(dir) : tsNodeArgs(dir) };
    }
  }
  return undefined;
}
