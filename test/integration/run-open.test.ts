// One owner of "is this a run, which run is it in, read it once": a real two-process run (cpu-prof) opened as a
// folder, as one of its files and through the import worker. run.json is read once per opened run; the Timeline's
// facts and the editor's hot-spot clock take the run read with the profile instead of reading it again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runDirOf } from '../helpers/cli';
import { fixtures, repoRoot } from '../helpers/paths';
import { isRunFolder, loadProfileOrRun, runFolderOf } from '../../src/launch/run/openPath';
import { runJsonReads, type OpenedRun } from '../../src/launch/run/runFolder';
import { runTimeFactsOf } from '../../src/launch/run/runTimeline';
import { ImportWorker } from '../../src/core/workerClient';

const work = mkdtempSync(join(tmpdir(), 'nf-open-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('a run is read once when opened, as a folder, as one of its files, and through the import worker', { timeout: 90_000 }, async () => {
  const r = await runCli(['profile', '--mode', 'cpu-prof', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', '300'], {
    cwd: join(fixtures, 'process-tree-timeline'),
    env: { PT_TIMES: join(work, 'times.jsonl') },
    killAfterMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const dir = runDirOf(r);
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!);

  // Which run a path is in: the folder itself, a file of it; not a folder without run.json, not a missing path.
  assert.equal(runFolderOf(dir), dir);
  assert.equal(runFolderOf(file), dir);
  assert.ok(isRunFolder(dir) && !isRunFolder(file));
  assert.equal(runFolderOf(work), undefined);
  assert.equal(runFolderOf(join(work, 'nothing-here')), undefined);

  // The folder: read once, the whole run merged, the run handed back with it.
  let before = runJsonReads();
  const whole = await loadProfileOrRun(dir, { sourceMaps: false });
  assert.equal(runJsonReads() - before, 1, 'run.json read once to open the run');
  assert.equal(whole.run?.dir, dir);
  assert.equal(whole.run?.info.mode, 'cpu-prof');
  assert.ok((whole.profile.meta.processes?.length ?? 0) >= 2, 'both processes');
  // The Timeline's markers from the run read with it: no second read. Without it, the path is looked up (and read).
  before = runJsonReads();
  const facts = await runTimeFactsOf(whole.profile, dir, whole.run);
  assert.equal(runJsonReads() - before, 0, 'the Timeline takes the opened run');
  assert.ok(
    facts?.markers.some((m) => m.kind === 'start'),
    JSON.stringify(facts?.markers),
  );
  const looked = await runTimeFactsOf(whole.profile, dir);
  assert.equal(runJsonReads() - before, 1, 'a path alone is read (what the counter counts)');
  assert.deepEqual(looked, facts);

  // One of its files: the file alone, with the run it is in.
  before = runJsonReads();
  const one = await loadProfileOrRun(file, { sourceMaps: false });
  assert.equal(runJsonReads() - before, 1);
  assert.equal(one.run?.dir, dir);
  assert.equal(one.profile.meta.processes, undefined, 'a file is itself, not the merged run');

  // The editor's path: the worker reads the run and hands it over; this thread reads nothing.
  before = runJsonReads();
  const w = new ImportWorker(join(repoRoot, 'dist', 'worker.js'));
  try {
    const res = await w.loadResult(dir, { sourceMaps: false });
    const run = res.extra as OpenedRun;
    assert.equal(run.dir, dir);
    assert.deepEqual(run.info, whole.run?.info);
    assert.equal(res.profile.tree.weight, whole.profile.tree.weight);
  } finally {
    await w.terminate();
  }
  assert.equal(runJsonReads() - before, 0, 'the host does not read run.json when the worker opened the run');
});
