// A live heap attach: the session copies the attached process's sampling heap profile about once a second and the
// newest copy replaces the last in the run folder; the live reader shows it while the target runs (bytes, by the
// allocating function), and the heap profile saved at detach is the same recording, with what came after the last copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AttachSession, LIVE_ATTACH_CHUNK_MS, listTargets, liveAttach, makeRunDir, saveAttachRun } from '../../src/launch/inspector';
import { liveHeapFileName } from '../../src/launch/run/liveHeapFile';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { liveRows } from '../../src/cli/liveTable';
import { freePort } from '../helpers/net';

// keepStrings holds what it makes (the leak, in batches, so the holding array grows little and the mix stays the same
// over the run); makeGarbage drops its arrays at once. Both run every few ms.
const TARGET = `'use strict';
const kept = [];
function keepStrings() { const batch = []; for (let i = 0; i < 200; i++) batch.push('item ' + i + ' ' + Math.random()); kept.push(batch); }
function makeGarbage() { let n = 0; for (let i = 0; i < 50; i++) n += new Array(64).fill(i).length; return n; }
setInterval(() => { keepStrings(); makeGarbage(); }, 2);
console.log('READY');
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  'a live heap attach: the newest heap profile replaces the last while the target runs; the one saved at detach agrees',
  { timeout: 90_000 },
  async (t) => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'nf-live-heap-')));
    const script = join(ws, 'target.js');
    writeFileSync(script, TARGET);
    const inspectPort = await freePort();
    // Without inlining: V8's heap sampler names the optimised frame an allocation ran in, so once listOnTimeout is
    // compiled with the callback inlined, what the callback allocates moves to it mid-run (seen: 24 % → 39 %).
    const child = spawn(process.execPath, ['--no-turbo-inlining', `--inspect=127.0.0.1:${inspectPort}`, script], {
      cwd: ws,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(ws, { recursive: true, force: true });
    });
    await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('READY') && resolve()));
    const [target] = await listTargets({ host: '127.0.0.1', port: inspectPort });
    assert.ok(target, 'the target is listed at its inspector');

    const dir = await makeRunDir(join(ws, '.nodeflame'));
    const note = { samplingInterval: 4096, samples: 'allocated' as const };
    const la = liveAttach(dir, Date.now(), note);
    const session = await AttachSession.start(target, { chunkMs: LIVE_ATTACH_CHUNK_MS, sourceMaps: false, heap: note, onHeap: la.onHeap });
    const file = join(dir, liveHeapFileName(child.pid!));
    await sleep(2600);
    const early = await loadLiveRun(dir, { sourceMaps: false, onlyNew: true });
    assert.equal(early.profile.meta.unit, 'bytes', 'the live view counts bytes');
    const earlyRows = liveRows(early.profile, 5).map((r) => r.name);
    assert.ok(earlyRows.includes('keepStrings'), `mid-run the live view shows the allocating function: ${earlyRows.join(', ')}`);
    const earlySize = statSync(file).size;
    await sleep(2600);
    assert.equal(child.exitCode, null, 'the target still runs');
    const later = await loadLiveRun(dir, { sourceMaps: false, onlyNew: true });
    assert.ok(
      later.profile.tree.weight > early.profile.tree.weight,
      `the live view grows: ${early.profile.tree.weight} → ${later.profile.tree.weight} bytes (file ${earlySize} → ${statSync(file).size})`,
    );
    // Read again with nothing new: the reader says so rather than drawing the same again (the live view keeps what it shows).
    await assert.rejects(loadLiveRun(dir, { sourceMaps: false, onlyNew: true }), /no new live chunks/);

    const result = await session.stop();
    assert.equal(result.lost, undefined);
    assert.ok(result.heapProfile, 'a heap profile at detach');
    forgetLiveRun(dir);
    const last = await loadLiveRun(dir, { sourceMaps: false });
    await saveAttachRun(
      dir,
      { ...result, heapProfile: result.heapProfile },
      { target: { ...target, pid: child.pid }, stoppedBy: 'user', events: la.events },
    );
    const final = await loadRunProfile(dir, { sourceMaps: false });
    assert.equal(final.meta.unit, 'bytes');
    // The same recording: what the last copy held, and what was allocated after it (at most a copy's interval).
    assert.ok(final.tree.weight >= last.profile.tree.weight, `final ${final.tree.weight} ≥ last live ${last.profile.tree.weight} bytes`);
    const liveTop = liveRows(last.profile, 3);
    const finalTop = liveRows(final, 3);
    assert.equal(liveTop[0].name, finalTop[0].name, `the same top allocating function: ${liveTop[0].name} / ${finalTop[0].name}`);
    assert.ok(Math.abs(liveTop[0].self - finalTop[0].self) < 0.05, `its share within 5 points: ${liveTop[0].self} / ${finalTop[0].self}`);
    const saved = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mode: string };
    assert.equal(saved.mode, 'attach');
    console.log(
      `[live heap attach] live ${early.profile.tree.weight} → ${later.profile.tree.weight} → ${last.profile.tree.weight} bytes, ` +
        `final ${final.tree.weight}; top ${finalTop.map((r) => `${r.name} ${(100 * r.self).toFixed(1)} %`).join(', ')}`,
    );
  },
);
