// What the side-by-side benchmarks share: finding an anchor tool and timing one command.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A command on PATH or in ~/.cargo/bin (where `cargo install inferno` puts it). */
export function which(cmd) {
  for (const d of (process.env.PATH ?? '').split(':').concat(join(homedir(), '.cargo/bin')))
    if (d && existsSync(join(d, cmd))) return join(d, cmd);
  return undefined;
}

const hasTime = existsSync('/usr/bin/time');

/**
 * Wall ms, CPU ms (user+sys) and peak RSS in MB of one command, the last two from /usr/bin/time when it is there
 * (NaN otherwise): CPU time is steadier than wall time on a shared machine. `out` receives its stdout.
 */
export function timed(cmd, args, out) {
  const t0 = performance.now();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S %M', cmd, ...args], { maxBuffer: 1 << 28, encoding: 'utf8' })
    : spawnSync(cmd, args, { maxBuffer: 1 << 28, encoding: 'utf8' });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const [u, s, kb] = hasTime ? r.stderr.trim().split('\n').pop().split(' ').map(Number) : [NaN, NaN, NaN];
  if (out) writeFileSync(out, r.stdout);
  return { wall, cpu: (u + s) * 1000, rss: kb / 1024, stdout: r.stdout };
}

/** `timed` in seconds, or the failure's first lines: a benchmark row goes on when one command fails (too big for it). */
export function timedOrFailure(cmd, args) {
  try {
    const r = timed(cmd, args);
    return { wall: r.wall / 1000, cpu: r.cpu / 1000, mib: r.rss, stdout: r.stdout };
  } catch (e) {
    return { error: String(e.message).split('\n').slice(0, 2).join(' ') };
  }
}

/** One `timedOrFailure` result as a table cell. */
export const timedText = (r) =>
  r.error ? `fails (${r.error.slice(0, 120)})` : `${r.wall.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU, ${r.mib.toFixed(0)} MiB`;

/**
 * Child mode of a benchmark run as `node <bench> --load <file>`: reads the file into the model in this fresh
 * process (as the extension host does on open), prints ms, weight and node count as JSON, and exits.
 */
export async function loadChildMode(loader) {
  if (process.argv[2] !== '--load') return;
  const { loadProfile } = await import(loader);
  const t0 = performance.now();
  const p = await loadProfile(process.argv[3], { sourceMaps: false });
  process.stdout.write(JSON.stringify({ ms: performance.now() - t0, weight: p.tree.weight, nodes: p.tree.count }));
  process.exit(0);
}

/** The importers bundled once into `loader` (CommonJS), so a child process measures parsing, not TypeScript. */
export async function bundleImporters(root, loader) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(root, 'src/core/importers/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: loader,
    logLevel: 'warning',
  });
}
