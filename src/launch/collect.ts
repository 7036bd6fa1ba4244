// What a run leaves once its app has exited: the processes' own records, the node process's memory map, perf's
// JIT maps and dumps moved into the run folder, empty files of a full disk dropped, and the raw profiles found.
import { constants, existsSync, readdirSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchMode } from './run/modes';
import { perfSideLogs } from './command';
import { collectJitDumps } from './perf';
import { findRawProfiles, removeEmptyProfiles } from './run/runFolder';
import { mapsFileName, readProcessRecords, type ProcessRecord } from './run/processRecords';
import { profilesFromChunks } from './run/cpuChunks';

/** The V8 event logs --perf-basic-prof writes besides the JIT map: no samples, so nothing to keep. */
async function removePerfSideLogs(runDir: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(runDir);
  } catch {
    return;
  }
  await Promise.all(perfSideLogs(names).map((n) => rm(join(runDir, n), { force: true })));
}

export interface Collected {
  records: ProcessRecord[];
  /** The raw profiles, the main one first. */
  profiles: string[];
  /** Empty profile files were dropped and the disk is (nearly) full. */
  diskFull: boolean;
  nodePid: number | undefined;
  mapsFile: string | undefined;
}

export async function collectRun(o: {
  runDir: string;
  mode: LaunchMode;
  appPid: number | undefined;
  /** What the launcher learnt while the app ran (perf's node child, its maps), if anything. */
  nodePid: number | undefined;
  mapsFile: string | undefined;
  /** perf: every process that ran under perf (each wrote /tmp/perf-<pid>.map); grows with the records. */
  perfPids: Set<number>;
  cwd: string;
}): Promise<Collected> {
  // The processes recorded themselves (see processRecords): whatever the timing, the node pid is known now.
  const records = readProcessRecords(o.runDir);
  let nodePid = o.nodePid;
  if (o.mode === 'perf') {
    for (const r of records) o.perfPids.add(r.pid);
    nodePid ??= (records.find((r) => r.ppid === o.appPid) ?? records[0])?.pid;
  }
  let mapsFile = o.mapsFile;
  const mapsPid = nodePid ?? (o.mode === 'perf' ? undefined : o.appPid);
  const maps = mapsPid !== undefined ? join(o.runDir, mapsFileName(mapsPid)) : undefined;
  if (maps && existsSync(maps)) mapsFile = maps;
  // perf script needs each JIT map; a copy in the run folder outlives the /tmp one, which is removed after processing.
  if (o.mode === 'perf') {
    for (const pid of o.perfPids)
      await copyFile(`/tmp/perf-${pid}.map`, join(o.runDir, `perf-${pid}.map`), constants.COPYFILE_EXCL).catch(() => undefined);
    const cwds = [...records.map((r) => r.cwd).filter((c): c is string => typeof c === 'string'), o.cwd];
    await collectJitDumps([...o.perfPids], cwds, o.runDir).catch(() => undefined);
    await removePerfSideLogs(o.runDir);
  }
  // A live cpu-prof run: a thread that could not write its profile at its end has its chunks.
  if (o.mode === 'cpu-prof') profilesFromChunks(o.runDir);
  const diskFull = removeEmptyProfiles(o.runDir);
  const profiles = findRawProfiles(o.runDir, o.mode, o.mode === 'perf' ? nodePid : o.appPid);
  return { records, profiles, diskFull, nodePid, mapsFile };
}
