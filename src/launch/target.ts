import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as l10n from '@vscode/l10n';
import { isNodeExecutable, parseStartScript, type NodeCommand } from './commandLine';

/** One app to profile: what `node` runs, and where. Paths are absolute. */
export interface LaunchTarget {
  program: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  nodeArgs: string[];
  /** Node executable; undefined: `node` on PATH. */
  nodePath?: string;
  /** Loader args implied by how the app is started (`ts-node …`, `tsx …`). */
  loader?: string[];
  /**
   * Any command line instead of one node program (`npm start`, `nodemon app.js`, a CLI in
   * node_modules/.bin), run without a shell; every Node process it starts is profiled. `program`
   * then names the command for labels (its first word).
   */
  command?: string[];
}

export type TargetSource =
  | 'setting'
  | 'launch.json'
  | 'package.json main'
  | 'package.json start'
  | 'package.json script'
  | 'active file'
  | 'command line';

export interface TargetCandidate {
  target: LaunchTarget;
  source: TargetSource;
  /** Short name for a picker: the launch configuration name or the script. */
  label: string;
}

function expand(value: string, folder: string): string {
  return value
    .replace(/\$\{(workspaceFolder|workspaceRoot)\}/g, folder)
    .replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => process.env[name] ?? '');
}

function abs(p: string, base: string): string {
  return isAbsolute(p) ? p : resolve(base, p);
}

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** A `type: node` (or `pwa-node`) launch configuration with a `program`; others are skipped. */
export function targetFromLaunchConfig(cfg: Record<string, unknown>, folder: string): LaunchTarget | undefined {
  if (cfg.request !== 'launch' || !(cfg.type === 'node' || cfg.type === 'pwa-node')) return undefined;
  const cwd = abs(typeof cfg.cwd === 'string' && cfg.cwd ? expand(cfg.cwd, folder) : folder, folder);
  const env = Object.fromEntries(Object.entries(stringRecord(cfg.env)).map(([k, v]) => [k, expand(v, folder)]));
  const runtime =
    typeof cfg.runtimeExecutable === 'string' && cfg.runtimeExecutable && cfg.runtimeExecutable !== 'node'
      ? expand(cfg.runtimeExecutable, folder)
      : undefined;
  const program = typeof cfg.program === 'string' && cfg.program ? abs(expand(cfg.program, folder), cwd) : undefined;
  // npm, yarn, pnpm, nodemon, tsx …: VS Code runs `<runtimeExecutable> <runtimeArgs> [program] <args>`, so do we.
  if (runtime && !isNodeExecutable(runtime)) {
    const words = [
      runtime,
      ...stringArray(cfg.runtimeArgs).map((a) => expand(a, folder)),
      ...(program ? [program] : []),
      ...stringArray(cfg.args).map((a) => expand(a, folder)),
    ];
    return targetFromCommand(words, env, cwd);
  }
  if (!program) return undefined;
  return {
    program,
    args: stringArray(cfg.args).map((a) => expand(a, folder)),
    env,
    cwd,
    nodeArgs: stringArray(cfg.runtimeArgs).map((a) => expand(a, folder)),
    nodePath: runtime,
  };
}

export function targetFromNodeCommand(cmd: NodeCommand, cwd: string): LaunchTarget {
  return {
    program: abs(cmd.program, cwd),
    args: cmd.args,
    env: cmd.env,
    cwd,
    nodeArgs: cmd.nodeArgs,
    nodePath: cmd.node && cmd.node !== 'node' && /[\\/]/.test(cmd.node) ? abs(cmd.node, cwd) : undefined,
    loader: cmd.loader,
  };
}

/** Any command line, run as written in `cwd` (see LaunchTarget.command). */
export function targetFromCommand(words: string[], env: Record<string, string>, cwd: string): LaunchTarget {
  return { program: words[0], args: words.slice(1), env, cwd, nodeArgs: [], command: words };
}

/** Candidates from `<folder>/package.json`: `scripts.start` (when it runs node, ts-node or tsx) and `main`. */
export function packageJsonCandidates(folder: string): TargetCandidate[] {
  let pkg: { main?: unknown; scripts?: Record<string, unknown> };
  try {
    pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return [];
  }
  const out: TargetCandidate[] = [];
  const start = pkg.scripts?.start;
  if (typeof start === 'string') {
    const cmd = parseStartScript(start);
    if (cmd) out.push({ target: targetFromNodeCommand(cmd, folder), source: 'package.json start', label: start });
  }
  // Every other script, as the package manager would run it (its lockfile says which one).
  const pm = packageManager(folder);
  for (const [name, script] of Object.entries(pkg.scripts ?? {})) {
    if (typeof script !== 'string' || (name === 'start' && out.length)) continue;
    const words = [pm, 'run', name];
    out.push({ target: targetFromCommand(words, {}, folder), source: 'package.json script', label: words.join(' ') });
  }
  if (typeof pkg.main === 'string' && pkg.main) {
    let main = abs(pkg.main, folder);
    if (!existsSync(main) && existsSync(main + '.js')) main += '.js';
    if (!out.some((c) => c.target.program === main)) {
      out.push({ target: { program: main, args: [], env: {}, cwd: folder, nodeArgs: [] }, source: 'package.json main', label: pkg.main });
    }
  }
  return out;
}

/** Candidates from launch.json configurations (already parsed, as VS Code hands them over). */
export function launchJsonCandidates(configurations: unknown, folder: string): TargetCandidate[] {
  if (!Array.isArray(configurations)) return [];
  const out: TargetCandidate[] = [];
  for (const c of configurations) {
    if (!c || typeof c !== 'object') continue;
    const t = targetFromLaunchConfig(c as Record<string, unknown>, folder);
    if (t)
      out.push({
        target: t,
        source: 'launch.json',
        label: typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }).name : t.program,
      });
  }
  return out;
}

export function describeSource(s: TargetSource): string {
  switch (s) {
    case 'setting':
      return l10n.t('from the nodeFlame.program setting');
    case 'launch.json':
      return l10n.t('launch configuration');
    case 'package.json main':
      return l10n.t('package.json "main"');
    case 'package.json start':
      return l10n.t('package.json "start" script');
    case 'package.json script':
      return l10n.t('package.json script');
    case 'active file':
      return l10n.t('active editor');
    case 'command line':
      return l10n.t('command line');
  }
}

/** Stable key of a target, to remember the user's choice. */
export function targetKey(t: LaunchTarget): string {
  return JSON.stringify([t.program, t.args, t.cwd, t.nodeArgs, ...(t.command ? [t.command] : [])]);
}

/** The package manager a folder's lockfile names (pnpm, yarn), else npm. */
export function packageManager(folder: string): 'npm' | 'yarn' | 'pnpm' {
  if (existsSync(join(folder, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(folder, 'yarn.lock'))) return 'yarn';
  return 'npm';
}
