// The process-tree Timeline tests' shared reads: the checked-in run's profiles, and where a function ran on a timeline.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import type { MergePart, Profile } from '../../src/core/model';
import { fixtures } from './paths';

/** test/fixtures/process-tree-timeline/run: a real cpu-prof run of a parent and its forked child (its make.sh). */
export const treeRunDir = join(fixtures, 'process-tree-timeline', 'run');

/** The run's .cpuprofiles as merge parts (pid order, no start times: the caller places them). */
export async function treeRunParts(): Promise<MergePart[]> {
  const files = readdirSync(treeRunDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  return Promise.all(
    files.map(async (f) => {
      const pid = Number(/\.(\d+)\.0\.001\.cpuprofile$/.exec(f)![1]);
      return { profile: await loadProfile(join(treeRunDir, f), { sourceMaps: false }), thread: `pid ${pid}`, pid };
    }),
  );
}

/** First and last sample time (ms on the profile's axis) with `name` on the stack, and how many. */
export function stretch(p: Profile, name: string): { from: number; to: number; n: number } {
  const tl = p.timeline!;
  let from = Infinity;
  let to = -Infinity;
  let n = 0;
  for (let i = 0; i < tl.times.length; i++)
    for (let x = tl.nodes[i]; x > 0; x = p.tree.parent[x])
      if (p.frames[p.tree.frame[x]]?.name === name) {
        from = Math.min(from, tl.times[i]);
        to = Math.max(to, tl.times[i]);
        n++;
        break;
      }
  return { from, to, n };
}
