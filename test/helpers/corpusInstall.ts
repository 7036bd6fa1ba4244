// The real-app corpus's npm packages, installed once per lock file from the npm registry into a cache outside git.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where installs live: `NODE_FLAME_CORPUS_CACHE`, else ~/.cache/node-flame-corpus. */
export function corpusCacheRoot(): string {
  return process.env.NODE_FLAME_CORPUS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'node-flame-corpus');
}

export interface CorpusInstall {
  /** The folder holding `node_modules/` of the corpus. */
  dir: string;
  /** Wall ms spent installing in this call; 0 when the cache already had it. */
  installMs: number;
}

/**
 * `npm ci --ignore-scripts` of `corpusDir`'s package.json and package-lock.json into a folder named by their hash,
 * so a fresh clone installs once and a changed lock installs anew. Installed into a temporary folder first and
 * renamed, so a run killed half-way never leaves a folder that looks done.
 */
export function installCorpus(corpusDir: string): CorpusInstall {
  const files = ['package.json', 'package-lock.json'];
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(join(corpusDir, f)));
  const root = corpusCacheRoot();
  const dir = join(root, hash.digest('hex').slice(0, 16));
  if (existsSync(join(dir, '.installed'))) return { dir, installMs: 0 };
  const t0 = performance.now();
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const f of files) copyFileSync(join(corpusDir, f), join(tmp, f));
  const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: tmp,
    encoding: 'utf8',
    timeout: 10 * 60_000,
  });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`npm ci of the corpus (${corpusDir}) failed: ${r.error?.message ?? ''}\n${r.stderr}`);
  }
  const installMs = performance.now() - t0;
  writeFileSync(join(tmp, '.installed'), JSON.stringify({ installMs, at: new Date().toISOString() }));
  // Another process may have finished the same install meanwhile: its folder is as good as ours.
  if (existsSync(join(dir, '.installed'))) rmSync(tmp, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  return { dir, installMs };
}
