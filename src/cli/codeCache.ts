import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { cacheFolder } from '../core/cacheFolder';

/**
 * Runs a CommonJS bundle from V8's code cache. Compiling the CLI's ~1 MB bundle was ~50 ms of every start (its
 * functions compiled as they are first called, more), a fifth of `report` on a small file: the cache holds the
 * bytecode of what a run compiled. Kept per user (the symbol cache's folder), named by the hash of the bundle and the
 * node that compiled it: V8 checks its own version, flags and the source's length, not its text. Anything that fails
 * here (no folder, a file V8 rejects) costs only the compile it would have spared.
 */
export function runCached(file: string, flagsAtCompile: () => void): void {
  const source = readFileSync(file, 'utf8');
  const dir = cacheFolder('code');
  const cacheFile =
    dir && join(dir, `${createHash('sha1').update(`${process.version}\0${process.arch}\0`).update(source).digest('hex')}.bin`);
  let cached: Buffer | undefined;
  try {
    if (cacheFile) cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const script = new Script(Module.wrap(source.replace(/^#!/, '//')), { filename: file, cachedData: cached });
  if (cacheFile && (!cached || script.cachedDataRejected)) {
    // At exit the cache holds every function the run compiled. V8 tags it with the flags set then: a run that changed
    // one (tick logs grow the young generation) sets back those of the start, or the next start would reject it.
    process.once('exit', () => {
      try {
        flagsAtCompile();
        mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
        const part = `${cacheFile}.${process.pid}.part`;
        writeFileSync(part, script.createCachedData(), { mode: 0o600 });
        renameSync(part, cacheFile);
        prune(dirname(cacheFile));
      } catch {
        // a read-only or full disk: the next start compiles again
      }
    });
  }
  const m = new Module(file, require.main);
  m.filename = file;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(m.exports, m.exports, Module.createRequire(file), m, file, dirname(file));
}

/** Caches kept: a new build or node leaves the old one behind; two installs (the extension's, a global one) alternate. */
const KEEP = 4;

function prune(dir: string): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => ({ path: join(dir, f), at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const f of files.slice(KEEP)) unlinkSync(f.path);
}
