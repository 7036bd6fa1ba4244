// The guide's scenario, shared by the tests that need a real profile of it: the Express app from
// examples/express-auth under a profiler, one user created, then autocannon on /auth, then Ctrl+C.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths';
import { freePort } from './net';

export const expressExample = join(repoRoot, 'examples', 'express-auth');
const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

/** autocannon's load: `connections` at once, for `seconds` or until `requests` have been sent. */
export type ExpressLoad = { connections: number } & ({ seconds: number } | { requests: number });

export interface ExpressProfileOptions {
  /** The folder the app file is in; the app runs there. */
  cwd: string;
  /** The app file in `cwd` (default `app.js`). */
  app?: string;
  /**
   * `prof`: `node --prof`, the tick log lands in `cwd`. `cpu-prof`: `--cpu-prof` into `out`. `{ preload, output }`:
   * a profiler loaded with `-r` that writes, when the app exits, a file in `cwd` whose name matches `output`.
   */
  profiler: 'prof' | 'cpu-prof' | { preload: string; output: RegExp };
  /** Where `cpu-prof` writes its .cpuprofile (default `cwd`). */
  out?: string;
  load: ExpressLoad;
}

/** Runs the app under the profiler and the guide's load; returns the profile it wrote. */
export async function profileExpressApp(o: ExpressProfileOptions): Promise<string> {
  const out = typeof o.profiler === 'object' ? o.cwd : (o.out ?? o.cwd);
  // The launcher's preload turns SIGINT into a normal exit, which --cpu-prof and exit-time writers need.
  const stop = ['-r', join(repoRoot, 'dist', 'preload-stop.js')];
  const flags =
    o.profiler === 'prof'
      ? ['--prof']
      : o.profiler === 'cpu-prof'
        ? [...stop, '--cpu-prof', `--cpu-prof-dir=${out}`]
        : [...stop, '-r', o.profiler.preload];
  if (o.profiler === 'cpu-prof') mkdirSync(out, { recursive: true });
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules') };
  const app = spawn(process.execPath, [...flags, o.app ?? 'app.js'], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => app.once('exit', r));
  try {
    await new Promise<void>((resolve, reject) => {
      app.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
      app.once('exit', (c) => reject(new Error(`app exited (${c}) before listening`)));
    });
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await fetch(`${base}/newUser?username=matt&password=password`)).status, 200);
    const amount = 'seconds' in o.load ? ['-d', String(o.load.seconds)] : ['-a', String(o.load.requests)];
    const load = spawn(
      process.execPath,
      [autocannon, ...amount, '-c', String(o.load.connections), `${base}/auth?username=matt&password=password`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    load.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => load.once('close', r));
    assert.equal(code, 0, `autocannon failed: ${stderr}`);
  } finally {
    if (app.exitCode === null && app.signalCode === null) app.kill('SIGINT');
    await exited;
  }
  const output = o.profiler === 'prof' ? /^isolate-.*\.log$/ : o.profiler === 'cpu-prof' ? /\.cpuprofile$/ : o.profiler.output;
  const found = readdirSync(out).find((f) => output.test(f));
  assert.ok(found, `the ${typeof o.profiler === 'object' ? o.profiler.preload : o.profiler} run wrote no profile`);
  return join(out, found);
}
