// Runs the real CLI (dist/cli.js) as a user would, and checks what its runs leave behind.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from './paths';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** SIGINT once the output matches (like Ctrl+C), `interruptDelayMs` later (default 300). */
  interruptWhen?: RegExp;
  interruptDelayMs?: number;
  /** SIGKILL after this long, so a hung run fails its test instead of the whole suite. */
  killAfterMs: number;
}

export function runCli(args: string[], opts: CliOptions): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    const check = () => {
      if (!sent && opts.interruptWhen && opts.interruptWhen.test(stdout + stderr)) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), opts.interruptDelayMs ?? 300);
      }
    };
    child.stdout.on('data', (d) => ((stdout += d), check()));
    child.stderr.on('data', (d) => ((stderr += d), check()));
    const guard = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The run folder `profile` names on stderr. */
export function runDirOf(r: CliRun): string {
  const m = /Run folder: (.+)/.exec(r.stderr);
  assert.ok(m, `no run folder in:\n${r.stderr}`);
  return m[1].trim();
}

/** `node-flame report <target> --format json --top 100000 [...args]`, asserted to succeed, parsed. */
export function reportJson<T>(target: string, ...args: string[]): T {
  const r = spawnSync(process.execPath, [cli, 'report', target, '--format', 'json', '--top', '100000', ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as T;
}

export function runJson<T = Record<string, unknown>>(dir: string): T {
  return JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as T;
}

let seq = 0;
/** A word no other process has in its argv, to find leftovers with pgrep. */
export function marker(prefix: string): string {
  return `${prefix}${process.pid}x${++seq}`;
}

/** The processes whose command line holds `mark` ('' when none is left). */
export function leftovers(mark: string): string {
  const r = spawnSync('pgrep', ['-af', mark], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() && !l.includes('pgrep'))
    .join('\n');
}

/**
 * `node-flame profile --mode <mode> --format json --top 100000 -o <work>/<name>.json --out <work>/runs [extra] -- <command>`
 * in `work`, as a user runs it: the JSON report it wrote (every function, as tests look them up by name) and what it said
 * on stderr (its warnings).
 */
export async function profileJson<R>(
  work: string,
  mode: string,
  name: string,
  command: string[],
  extra: string[] = [],
): Promise<{ report: R; stderr: string }> {
  const out = join(work, `${name}.json`);
  const r = await runCli(
    ['profile', '--mode', mode, '--format', 'json', '--top', '100000', '-o', out, '--out', join(work, 'runs'), ...extra, '--', ...command],
    {
      cwd: work,
      killAfterMs: 100_000,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  return { report: JSON.parse(readFileSync(out, 'utf8')) as R, stderr: r.stderr };
}

/**
 * A `Math.sqrt` loop in `area()`, reached four calls deep (caller → arrow → method → get big → area), which TurboFan
 * inlines into the caller: `caller` is the code that calls `arrow()` for 2 s (tests perf-inlined, cpuprof-inlined).
 */
export function inlinedLoopProgram(caller: string): string {
  return `class Shape {
  constructor(n) { this.n = n; }
  area() { let s = 0; for (let i = 0; i < this.n; i++) s += Math.sqrt(i); return s; }
  get big() { return this.area() > 10; }
}
const obj = { method() { return new Shape(3000).big; } };
const arrow = () => obj.method();
${caller}
`;
}
