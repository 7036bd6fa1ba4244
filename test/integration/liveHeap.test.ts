// A live heap run: the preload copies the process's sampling heap profile about once a second into the run folder
// (the newest replaces the last); the live reader shows it while the app runs, and the heap profile written at exit is
// the same recording, with what came after the last copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileSession } from '../../src/launch/launcher';
import { createRunDir } from '../../src/launch/run/runFolder';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { liveRows } from '../../src/cli/liveTable';
import { repoRoot } from '../helpers/paths';

// keepStrings holds what it makes (in batches, so the holding array grows little); makeGarbage drops its arrays.
const ALLOCATING = `'use strict';
const kept = [];
function keepStrings() { const batch = []; for (let i = 0; i < 200; i++) batch.push('item ' + i + ' ' + Math.random()); kept.push(batch); }
function makeGarbage() { let n = 0; for (let i = 0; i < 50; i++) n += new Array(64).fill(i).length; return n; }
const timer = setInterval(() => { keepStrings(); makeGarbage(); }, 2);
setTimeout(() => clearInterval(timer), Number(process.argv[2]));
`;

test('a live heap run: its heap profile so far while it runs, the one written at exit agrees', { timeout: 60_000 }, async (t) => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-live-heap-run-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const program = join(ws, 'alloc.js');
  writeFileSync(program, ALLOCATING);
  const runDir = createRunDir(join(ws, 'runs'), 'heap');
  const session = new ProfileSession({
    target: { program, args: ['4500'], cwd: ws, env: {}, nodeArgs: [], nodePath: process.execPath },
    mode: 'heap',
    runDir,
    preloadPath: join(repoRoot, 'dist', 'preload-stop.js'),
    heapSamples: 'allocated',
    heapInterval: 16384,
    live: true,
  });
  const done = session.run();
  await new Promise((r) => setTimeout(r, 2500));
  assert.ok(session.running, 'the app still runs');
  assert.ok(
    readdirSync(runDir).some((f) => /^live-heap-\d+\.heapprofile$/.test(f)),
    `a copy written while running: ${readdirSync(runDir).join(', ')}`,
  );
  const mid = await loadLiveRun(runDir, { sourceMaps: false, onlyNew: true });
  assert.equal(mid.profile.meta.unit, 'bytes', 'the live view counts bytes');
  const midRows = liveRows(mid.profile, 5).map((r) => r.name);
  assert.ok(midRows.includes('keepStrings') && midRows.includes('makeGarbage'), `mid-run: ${midRows.join(', ')}`);
  assert.equal(mid.run.info.mode, 'heap');

  const result = await done;
  assert.equal(result.error, undefined, result.error?.message);
  forgetLiveRun(runDir);
  const last = await loadLiveRun(runDir, { sourceMaps: false });
  const final = await loadRunProfile(runDir, { sourceMaps: false, allProcesses: true });
  assert.equal(final.meta.unit, 'bytes');
  assert.ok(last.profile.tree.weight > mid.profile.tree.weight, 'the live view grew');
  // The same recording: the last copy's bytes, and what came after it (at most a copy's interval).
  assert.ok(final.tree.weight >= last.profile.tree.weight, `final ${final.tree.weight} ≥ last live ${last.profile.tree.weight}`);
  const liveTop = liveRows(last.profile, 3);
  const finalTop = liveRows(final, 3);
  // The two allocating functions make about the same bytes (47.6 / 46.5 % in one run), so which one is first may
  // differ between two moments of the same recording (CI-21): each one's share is what must agree.
  for (const name of ['keepStrings', 'makeGarbage']) {
    const [a, b] = [liveTop, finalTop].map((rows) => rows.find((r) => r.name === name));
    assert.ok(a && b, `${name} among the top 3, live and final: ${liveTop.map((r) => r.name)} / ${finalTop.map((r) => r.name)}`);
    assert.ok(Math.abs(a.self - b.self) < 0.05, `${name} within 5 points: ${a.self} / ${b.self}`);
  }
  t.diagnostic(
    `live ${mid.profile.tree.weight} → ${last.profile.tree.weight} bytes, final ${final.tree.weight}; ` +
      `top ${finalTop.map((r) => `${r.name} ${(100 * r.self).toFixed(1)} %`).join(', ')}`,
  );
});
