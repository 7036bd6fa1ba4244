import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { processRows } from '../../src/core/model/processes';
import { fixtures } from '../helpers/paths';

// process-tree-timeline/run: a real `node-flame profile --mode cpu-prof -- node parent.js 300` (make.sh): the parent is
// hot ~0.3 s, forks child.js and waits for it; the child idles ~0.3 s, then is hot ~0.3 s. --cpu-prof samples both on
// a clock, so the parent's 63 % of the run's samples (898 of 1424, 65 % of them idle) is not its share of the CPU.
test("a mostly idle process's row says how much of its samples were idle; a busy one's does not", async () => {
  const run = await loadRunProfile(join(fixtures, 'process-tree-timeline', 'run'), { sourceMaps: false });
  const rows = processRows(run).filter((r) => !r.thread);
  const parent = rows.find((r) => r.label.includes('parent.js'));
  const child = rows.find((r) => r.label.includes('child.js'));
  assert.ok(parent && child, JSON.stringify(rows));
  // Below the 90 % of a process that only waited (that one is left out at first, and says so): a note of its own.
  assert.equal(parent.waitedIdle, undefined);
  assert.ok(parent.idle !== undefined && parent.idle > 0.6 && parent.idle < 0.7, `the parent's idle share: ${parent.idle}`);
  assert.equal(child.idle, undefined, 'the child was idle for less than half of its samples');
});

test("a run's Node.js release is the one run.json recorded (the Summary's row), not a guess from the profile", async () => {
  const run = await loadRunProfile(join(fixtures, 'process-tree-timeline', 'run'), { sourceMaps: false });
  assert.equal(run.meta.nodeVersion, 'v20.20.2');
  assert.equal(run.meta.v8Version, undefined, 'a .cpuprofile does not name V8');
});
