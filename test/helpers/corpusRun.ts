// Runs one real program of the corpus under `node-flame profile` in one mode, as a user would, and computes every
// check of the corpus test from outside: what ran (recorded by a preload of our own), what the run holds, the JSON.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from './paths';
import { jsSelf, type JsSelf, type CpuProfileLike } from './agreement';
import {
  duplicateRows,
  missingHot,
  readRecorded,
  warningsNotShown,
  wrongLines,
  type JsonFunctionRow,
  type Recorded,
  type WrongLine,
} from './corpusChecks';

export type CorpusMode = 'prof' | 'perf' | 'cpu-prof' | 'heap';

export interface CorpusProgram {
  name: string;
  /** Folder under the corpus's `apps/` copied into the program's working folder. */
  app: string;
  /** The command after `--`, run in the working folder (whose node_modules is the installed corpus). */
  command: (work: string) => string[];
  /** `--load`: a shell command run once the app listens. */
  load?: string;
  /** Its shares vary from run to run more than the agreement's tolerance (a server under load): reported only. */
  noisyShares?: string;
  /** Functions a profile of this program must name (with a file); per mode when they differ (heap: allocators). */
  hot: string[];
  heapHot?: string[];
  /** Prepares the working folder (inputs made from installed packages, not kept in git). */
  prepare?: (work: string) => void;
}

export interface CorpusResult {
  program: string;
  mode: CorpusMode;
  code: number | null;
  ms: number;
  runDir: string;
  ran: Recorded[];
  processesRan: number;
  processesFound: number;
  threadsRan: number;
  threadsFound: number;
  functions: JsonFunctionRow[];
  missingHot: string[];
  wrongLines: WrongLine[];
  duplicates: string[];
  warningsNotShown: string[];
  self?: JsSelf;
  output: string;
}

const recorder = join(repoRoot, 'test', 'corpus', 'recordProcess.cjs');

function run(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  killAfterMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => (clearTimeout(guard), resolve({ code, stdout, stderr })));
  });
}

/** A fresh working folder: the app's files, and node_modules linked to the installed corpus. */
export function workFolder(corpusDir: string, installDir: string, program: CorpusProgram): string {
  const work = mkdtempSync(join(tmpdir(), `nf-corpus-${program.name.replace(/[^a-z0-9]+/gi, '-')}-`));
  cpSync(join(corpusDir, 'apps', program.app), work, { recursive: true });
  symlinkSync(join(installDir, 'node_modules'), join(work, 'node_modules'));
  program.prepare?.(work);
  return work;
}

export async function profileProgram(
  program: CorpusProgram,
  mode: CorpusMode,
  work: string,
  opts: { killAfterMs?: number } = {},
): Promise<CorpusResult> {
  const out = join(work, '.runs', mode);
  mkdirSync(out, { recursive: true });
  const record = join(out, 'recorded.jsonl');
  // A mode recorded again (corpus.test's second cpu-prof run) counts only its own processes.
  rmSync(record, { force: true });
  const env = { NODE_OPTIONS: `--require ${recorder}`, NODE_FLAME_CORPUS_RECORD: record };
  const args = ['profile', '--mode', mode, '--out', out];
  if (program.load) args.push('--load', program.load);
  const t0 = performance.now();
  const p = await run([...args, '--', ...program.command(work)], work, env, opts.killAfterMs ?? 120_000);
  const ms = performance.now() - t0;
  const output = p.stdout + p.stderr;
  const runDir = /Run folder: (.+)/.exec(p.stderr)?.[1].trim() ?? '';
  // The CLI itself and the load command's processes are not the program.
  const ran = readRecorded(record).filter((r) => !r.argv.some((a) => a.endsWith('dist/cli.js') || a.includes('autocannon')));
  const clean = { NODE_OPTIONS: '', NODE_FLAME_CORPUS_RECORD: '' };
  const json = await run(['report', runDir, '--format', 'json', '--top', '100000'], work, clean, 120_000);
  const report = JSON.parse((json.code === 0 && json.stdout) || '{}') as { functions?: JsonFunctionRow[]; processes?: { pid: number }[] };
  const functions = report.functions ?? [];
  let self: JsSelf | undefined;
  let threadsFound = 0;
  if (mode !== 'heap') {
    const file = join(out, 'export.cpuprofile');
    // Every process, the launchers that only waited included: the thread count is about what the run recorded.
    const exported = await run(['report', runDir, '--format', 'cpuprofile', '--all-processes', '-o', file], work, clean, 120_000);
    if (exported.code === 0) {
      self = jsSelf(JSON.parse(readFileSync(file, 'utf8')) as CpuProfileLike);
      threadsFound = self.jsThreads;
    }
  } else threadsFound = heapThreads(runDir);
  const pids = new Set((report.processes ?? []).map((x) => x.pid));
  const ranPids = new Set(ran.map((r) => r.pid));
  // The program's own code: its files and the installed packages (node_modules is a link to the install).
  const installed = realpathSync(join(work, 'node_modules'));
  const own = (f: string) => f.startsWith(work) || f.startsWith(installed);
  return {
    program: program.name,
    mode,
    code: p.code,
    ms,
    runDir,
    ran,
    processesRan: ranPids.size,
    processesFound: [...ranPids].filter((x) => pids.has(x)).length,
    threadsRan: ran.length,
    threadsFound,
    functions,
    missingHot: missingHot(functions, mode === 'heap' ? (program.heapHot ?? program.hot) : program.hot),
    wrongLines: wrongLines(functions, own),
    duplicates: duplicateRows(functions),
    warningsNotShown: warningsNotShown(json.stderr, output),
    self,
    output,
  };
}

/** Heap mode writes one `.heapprofile` per process and thread it profiled. */
function heapThreads(runDir: string): number {
  try {
    return readdirSync(runDir).filter((f) => f.endsWith('.heapprofile')).length;
  } catch {
    return 0;
  }
}
