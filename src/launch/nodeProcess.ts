// Which process of a run is node, while it runs: the app itself, or perf's child in perf mode (whose pid and memory
// map the launcher must take before the process is gone), and every process perf ran (each writes a JIT map).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync } from '../core/safeWrite';
import type { LaunchMode } from './run/modes';
import { mapsFileName } from './run/processRecords';
import { captureMaps, childPids, descendantPids } from './processTree';

export class NodeProcessWatch {
  nodePid: number | undefined;
  mapsFile: string | undefined;
  /** Set by the launcher when the app exits: nothing is left to look at. */
  exited = false;
  /** Every process under perf writes /tmp/perf-<pid>.map; remembered so they can be removed after processing. */
  readonly perfPids = new Set<number>();

  constructor(
    private readonly mode: LaunchMode,
    private readonly runDir: string,
    private readonly appPid: () => number | undefined,
  ) {}

  /** The node process: the app itself, or perf's child in perf mode. */
  find(): number | undefined {
    const pid = this.appPid();
    if (pid === undefined) return undefined;
    if (this.mode !== 'perf') return pid;
    this.rememberPerfPids();
    return childPids(pid)[0];
  }

  rememberPerfPids(): void {
    const pid = this.appPid();
    if (this.mode === 'perf' && pid && !this.exited) for (const p of descendantPids(pid)) this.perfPids.add(p);
  }

  /**
   * At Stop, before any signal: the node process is surely alive, so its pid and maps are taken now,
   * whatever timers have or have not fired yet.
   */
  learnAtStop(): void {
    if (this.nodePid !== undefined) return;
    const pid = this.find();
    if (pid === undefined) return;
    this.nodePid = pid;
    if (process.platform !== 'linux') return;
    const dest = join(this.runDir, mapsFileName(pid));
    try {
      replaceFileSync(dest, readFileSync(`/proc/${pid}/maps`));
      this.mapsFile = dest;
    } catch {
      // gone already: its preload wrote the maps at exit
    }
  }

  /** The node process's memory map into the run folder (native frames are named by it after the process is gone). */
  async captureMaps(): Promise<void> {
    if (this.exited) return;
    const pid = this.find();
    if (pid === undefined) return;
    this.nodePid = pid;
    const dest = join(this.runDir, mapsFileName(pid));
    if (await captureMaps(pid, dest)) this.mapsFile = dest;
  }
}
