// Run folders on disk (`.nodeflame/<YYYYMMDD-HHMMSS>-<mode>/`), without VS Code, so tests can read them.
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { functionStats, type Profile } from '../../core/model';
import { HOST_RUN_JSON_BYTES, readRunJson, updateRunJson, RUNS_DIR, type RunSummary } from '../../launch/run/runFolder';

export { RUNS_DIR, type RunSummary };

export interface RunInfo {
  dir: string;
  /** Folder name, e.g. `20250101-120000-prof`. */
  name: string;
  /** When the run started, from the folder name (local time); undefined for other names. */
  time?: Date;
  mode?: string;
  durationMs?: number;
  exitCode?: number | null;
  command?: string;
  /** Raw profiles in the folder, main one first. */
  profiles: string[];
  /** A command's run with a profile per process: opened as the whole folder, every process merged. */
  wholeRun?: boolean;
  summary?: RunSummary;
  /** run.json's size when it was too big to read on the extension host (the run is listed from its files). */
  runJsonTooBig?: number;
}

/** The newest runs listed; older ones stay on disk (a repository may ship thousands of folders). */
export const MAX_LISTED_RUNS = 500;

const PROFILE_FILE = /^(?:isolate-.*\.log|.*-v8\.log|.*\.cpuprofile|.*\.heapprofile|perf\.data|.*\.perf|.*\.perf\.txt|.*\.folded)$/i;

export function isProfileFile(name: string): boolean {
  return PROFILE_FILE.test(name);
}

export function parseRunTime(name: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(name);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const t = new Date(y, mo - 1, d, h, mi, s);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

/** Which files the run's mode produces, so the main profile is that kind (then the largest, i.e. the main thread's). */
const KIND_OF_MODE: Record<string, RegExp> = {
  prof: /\.log$/i,
  perf: /^perf\.data$|\.perf(?:\.txt)?$/i,
  'cpu-prof': /\.cpuprofile$/i,
  heap: /\.heapprofile$/i,
};

export async function readRun(dir: string, name: string): Promise<RunInfo | undefined> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return undefined;
  }
  // Missing while a run is still being written, or in a folder someone made by hand: listed from its files alone.
  // A run.json too big to be a launcher's is not read: parsing it would block every extension on the host.
  const size = await stat(join(dir, 'run.json')).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );
  const tooBig = size > HOST_RUN_JSON_BYTES ? size : undefined;
  const run = (tooBig === undefined ? await readRunJson(dir) : undefined) ?? {};
  const files = entries.filter(isProfileFile);
  if (!files.length && !entries.includes('run.json')) return undefined;
  const sizes = new Map<string, number>();
  await Promise.all(
    files.map(async (f) =>
      sizes.set(
        f,
        await stat(join(dir, f)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    ),
  );
  const modeFromName = /-([a-z-]+)$/i.exec(name)?.[1];
  const mode = run.mode ?? modeFromName;
  const kind = mode && Object.hasOwn(KIND_OF_MODE, mode) ? KIND_OF_MODE[mode] : undefined;
  // run.json lists the launcher's choice first (main isolate / main thread); otherwise guess by kind and size.
  const listed = (run.profiles ?? []).map((x) => basename(x));
  const rank = (f: string): number => (listed.includes(f) ? listed.indexOf(f) : listed.length);
  files.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      Number(!!kind && kind.test(b)) - Number(!!kind && kind.test(a)) ||
      (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0) ||
      a.localeCompare(b),
  );
  return {
    dir,
    name,
    time: parseRunTime(name),
    mode,
    durationMs: run.durationMs,
    exitCode: run.exitCode,
    command: run.command?.join(' '),
    profiles: files.map((f) => join(dir, f)),
    wholeRun: mode !== 'perf' && (run.processes ?? []).filter((p) => p.profiles?.length).length > 1,
    summary: run.summary,
    ...(tooBig !== undefined ? { runJsonTooBig: tooBig } : {}),
  };
}

/**
 * Runs under `<root>/.nodeflame`, newest first: one folder at a time (each run.json read and parsed before the
 * next, at most HOST_RUN_JSON_BYTES), and the newest MAX_LISTED_RUNS folders, so memory and the host thread's
 * time stay bounded whatever a repository ships.
 */
export async function listRuns(root: string): Promise<RunInfo[]> {
  const base = join(root, RUNS_DIR);
  let names: string[];
  try {
    names = (await readdir(base, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const runs: RunInfo[] = [];
  for (const n of names.sort().reverse().slice(0, MAX_LISTED_RUNS)) {
    const r = await readRun(join(base, n), n);
    if (r) runs.push(r);
  }
  return runs.sort((a, b) => (b.time?.getTime() ?? 0) - (a.time?.getTime() ?? 0) || b.name.localeCompare(a.name));
}

/** The function with the most self weight, leaving out idle time and unattributed samples. */
export function summarize(profile: Profile): RunSummary {
  const stats = functionStats(profile.tree, profile.frames.length);
  let best: (typeof stats)[number] | undefined;
  for (const s of stats) {
    const c = profile.frames[s.frame].category;
    if (c === 'idle' || c === 'program' || c === 'unaccounted') continue;
    if (!best || s.self > best.self) best = s;
  }
  const samples = profile.tree.weight;
  if (!best || samples <= 0) return { samples };
  const f = profile.frames[best.frame];
  return { samples, topFunction: { name: f.name, file: f.file, line: f.line, self: best.self / samples } };
}

/** A folder itself, in a parent (`.nodeflame`) that is one too: neither is a symlink to a folder elsewhere. */
async function isRealRunFolder(dir: string): Promise<boolean> {
  const [own, parent] = await Promise.all([lstat(dir).catch(() => undefined), lstat(dirname(dir)).catch(() => undefined)]);
  return !!own?.isDirectory() && !!parent?.isDirectory();
}

/**
 * Caches the summary in run.json (keeping every other key), so the list need not load profiles again. Only
 * into a trusted workspace's real run folder (the caller knows the trust): false when nothing was written.
 */
export async function saveSummary(dir: string, summary: RunSummary, trusted: boolean): Promise<boolean> {
  if (!trusted || !(await isRealRunFolder(dir))) return false;
  await updateRunJson(dir, { summary });
  return true;
}
