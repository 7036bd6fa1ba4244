// Google's pprof (the Go module github.com/google/pprof) run with `go run`, as the pprof interop tests read
// our exports with it. Module and build caches live under ~/.cache so the module is fetched and built once.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const cache = join(homedir(), '.cache', 'node-flame-go');

/** Why Google's pprof cannot run here (no `go`), or undefined when it can. */
export function goMissing(): string | undefined {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.error || r.status !== 0
    ? `go is not installed (${r.error?.message ?? r.stderr.trim()}): Google's pprof cannot be run`
    : undefined;
}

/** `pprof <args>` through `go run github.com/google/pprof@latest`; throws with its output when it fails. */
export function goPprof(args: string[]): string {
  mkdirSync(cache, { recursive: true });
  const env = {
    ...process.env,
    GOPATH: join(cache, 'gopath'),
    GOMODCACHE: join(cache, 'gopath', 'pkg', 'mod'),
    GOCACHE: join(cache, 'build'),
    GOFLAGS: '-buildvcs=false',
  };
  const r = spawnSync('go', ['run', 'github.com/google/pprof@latest', ...args], {
    encoding: 'utf8',
    env,
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(`go run github.com/google/pprof@latest ${args.join(' ')} failed (${r.status ?? r.error?.message}):\n${r.stderr}`);
  return r.stdout;
}

/** The rows of `pprof -top`: each function's name and flat share (0..1). */
export function topRows(out: string): { name: string; flat: number }[] {
  const rows: { name: string; flat: number }[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+[\d.]+%\s+(.+)$/.exec(line);
    if (m) rows.push({ name: m[2].trim(), flat: Number(m[1]) / 100 });
  }
  return rows;
}
