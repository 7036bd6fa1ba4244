import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { join } from 'node:path';
import { fixtures, repoRoot } from '../helpers/paths';
import { loadProfile } from '../../src/core/importers';
import { packProfile, unpackProfile, type PackedProfile } from '../../src/core/model/transfer';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { ImportCancelled, ImportWorker, loadProfileInWorker } from '../../src/core/workerClient';

const seeds = ['seed.cpuprofile', 'seed-v8.log', 'seed.perf.txt', 'seed.folded'].map((n) => join(fixtures, 'fuzz', n));

function sameProfile(a: Profile, b: Profile): void {
  assert.equal(b.format, a.format);
  assert.deepEqual(b.meta, a.meta);
  // An importer may leave `tier: undefined`; an absent field means the same.
  const defined = (f: object) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
  assert.deepEqual(b.frames.map(defined), a.frames.map(defined));
  assert.deepEqual(b.threads, a.threads);
  assert.deepEqual(b.warnings, a.warnings);
  assert.deepEqual(b.lineHits, a.lineHits);
  assert.equal(b.tree.count, a.tree.count);
  const n = a.tree.count;
  assert.deepEqual(b.tree.parent.subarray(0, n), a.tree.parent.subarray(0, n));
  assert.deepEqual(b.tree.frame.subarray(0, n), a.tree.frame.subarray(0, n));
  assert.deepEqual(b.tree.total, a.tree.total);
  assert.deepEqual(b.tree.totalTime, a.tree.totalTime);
  assert.deepEqual(b.timeline, a.timeline);
}

/** Through a real MessageChannel, the way the worker sends it. */
function send(p: Profile): { got: PackedProfile; sentBuffers: ArrayBuffer[] } {
  const { packed, transfer } = packProfile(p);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(packed, transfer);
  const got = receiveMessageOnPort(port2)!.message as PackedProfile;
  port1.close();
  return { got, sentBuffers: transfer };
}

test('packed profiles of every format come back identical through postMessage, numbers transferred not copied', async () => {
  for (const path of seeds) {
    const p = await loadProfile(path, { sourceMaps: false });
    const { got, sentBuffers } = send(p);
    assert.ok(sentBuffers.length >= 9);
    for (const b of sentBuffers) assert.equal(b.byteLength, 0, `${path}: a buffer was copied instead of transferred`);
    const q = unpackProfile(got);
    sameProfile(p, q);
    // The sender's profile is untouched (packing copies out of the live, growable arrays).
    assert.ok(p.tree.weight > 0);
  }
});

test('a profile handed over sends its sample arrays themselves (no copy); one kept by the sender is copied', async () => {
  for (const path of [seeds[0], seeds[1]]) {
    const kept = await loadProfile(path, { sourceMaps: false });
    const p = await loadProfile(path, { sourceMaps: false });
    const times = p.timeline!.times;
    assert.ok(times.length > 0 && times.byteOffset === 0, `${path}: the importer's times start their buffer`);
    const { packed, transfer } = packProfile(p, { handOver: true });
    assert.equal(packed.timeline!.times, times, 'the same array, not a copy');
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(packed, transfer);
    const got = receiveMessageOnPort(port2)!.message as PackedProfile;
    port1.close();
    assert.equal(times.byteLength, 0, 'handed over: the sender no longer has it');
    sameProfile(kept, unpackProfile(got));
    // Not handed over: the sender's arrays stay whole.
    const again = await loadProfile(path, { sourceMaps: false });
    send(again);
    assert.ok(again.timeline!.times.byteLength > 0);
  }
});

test('an unpacked tree keeps its (parent, frame) index: adding a known stack creates no node', async () => {
  const p = await loadProfile(seeds[0], { sourceMaps: false });
  const q = unpackProfile(send(p).got);
  const deepest = q.tree.count - 1;
  const stack = q.tree.stack(deepest);
  const before = q.tree.count;
  assert.equal(q.tree.addStack(stack, 1), deepest);
  assert.equal(q.tree.count, before);
});

test('optional frame fields, thread roots, line hits and odd values survive', () => {
  const b = new ProfileBuilder('perf', { durationMs: 12.5, command: 'node x.js' });
  const f1 = b.frame({
    name: 'handler',
    file: '/app/node_modules/@scope/pkg/a.js',
    line: 3_000_000_000,
    column: 7,
    category: 'dependency',
    pkg: '@scope/pkg',
    tier: 'turbofan',
    generated: { file: '/app/dist/a.js', line: 1, column: 900 },
  });
  const f2 = b.frame({ name: 'memcpy', file: '', line: 0, column: 0, category: 'shared-lib', lib: '/usr/lib/libc.so.6' });
  b.sample([f1, f2], 2.5, 1.25, 'main');
  b.sample([f1], 1, 0, 'worker 1');
  b.lineHit('/app/a.js', 12, 1, 2);
  b.warn('one warning');
  const p = b.build();
  sameProfile(p, unpackProfile(send(p).got));
});

test('the import worker returns the same profile as an in-process import, with progress', async () => {
  const direct = await loadProfile(seeds[2], { sourceMaps: false });
  const progress: number[] = [];
  const viaWorker = await loadProfileInWorker(join(repoRoot, 'dist', 'worker.js'), seeds[2], {
    sourceMaps: false,
    onProgress: (f) => progress.push(f),
  });
  sameProfile(direct, viaWorker);
  assert.ok(progress.length > 0 && progress.at(-1) === 1, `progress ${progress}`);
});

test('aborting an import ends the worker and says it was cancelled', async () => {
  const w = new ImportWorker(join(repoRoot, 'dist', 'worker.js'));
  const ac = new AbortController();
  const p = w.load(seeds[1], { sourceMaps: false, signal: ac.signal });
  ac.abort();
  await assert.rejects(p, (e: Error) => e instanceof ImportCancelled && /cancelled/.test(e.message));
  await assert.rejects(w.load(seeds[1]), 'a terminated worker takes no more work');
  await w.terminate();
});

test('CallTree.fromArrays: the one rebuild from arrays keeps ids, re-indexes, keeps repeated siblings, rejects bad shapes', async () => {
  const { CallTree } = await import('../../src/core/model');
  // 0 root; 1 a; 2 a→b; 3 c
  const ok = CallTree.fromArrays({ count: 4, parent: [0, 0, 1, 0], frame: [0, 0, 1, 2], self: [0, 1, 2, 3] }, 3);
  assert.equal(ok.child(1, 1), 2, 'indexed: a known stack finds its node');
  assert.equal(ok.count, 4);
  assert.deepEqual([...ok.total.subarray(0, 4)], [6, 3, 2, 3]);
  // Two children of the root with frame 0: kept as two nodes (their ids may be referenced), weights intact.
  const rep = CallTree.fromArrays({ count: 3, parent: [0, 0, 0], frame: [0, 0, 0], self: [0, 1, 5] }, 1);
  assert.equal(rep.count, 3);
  assert.deepEqual([...rep.total.subarray(0, 3)], [6, 1, 5]);
  assert.throws(
    () => CallTree.fromArrays({ count: 2, parent: [0, 1], frame: [0, 0], self: [0, 1] }, 1),
    /bad node 1/,
    'a parent that does not come first',
  );
  assert.throws(
    () => CallTree.fromArrays({ count: 2, parent: [0, 0], frame: [0, 7], self: [0, 1] }, 1),
    /bad node 1/,
    'a frame outside the table',
  );
  assert.throws(() => CallTree.fromArrays({ count: 3, parent: [0, 0], frame: [0, 0], self: [0, 1] }, 1), /bad shape/);
});
