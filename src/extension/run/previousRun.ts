// Finds the run to compare a new one with: no `vscode` import, so tests read real run folders.
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseRunTime, readRun } from '../history/runs';
import { readRunJson } from '../../launch/run/runFolder';

/** Whether run.json's command line ran `program` (compared as resolved paths). */
async function ranProgram(dir: string, program: string): Promise<boolean> {
  const run = await readRunJson(dir);
  if (!run?.command) return false;
  const cwd = run.cwd ?? dir;
  const want = resolve(program);
  return run.command.some((a) => !a.startsWith('-') && resolve(cwd, a) === want);
}

/**
 * The latest run folder before `current` (a run folder under `runsRoot`) that profiled the same program and wrote a
 * profile, or undefined. Folder names start with their time, so they sort by age. The folder, not its first profile:
 * a run is compared as it is read, every process (its first profile may be npm's, not the server's).
 */
export async function previousRunFolder(runsRoot: string, current: string, program: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(runsRoot, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return undefined;
  }
  const self = basename(current);
  const older = names
    .filter((n) => n !== self && parseRunTime(n) && n < self)
    .sort()
    .reverse();
  for (const name of older) {
    const dir = join(runsRoot, name);
    if (!(await ranProgram(dir, program))) continue;
    const run = await readRun(dir, name);
    if (run?.profiles[0]) return dir;
  }
  return undefined;
}
