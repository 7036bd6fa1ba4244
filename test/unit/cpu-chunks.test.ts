// The merge of live chunks: real pieces of one in-process profile (stopped and started as the preload does),
// read as lines that may arrive cut in two; the merge keeps every sample once, in time order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from 'node:inspector';
import { addChunkLines } from '../../src/launch/run/cpuChunks';
import { CpuProfileMerger, type CpuProfile } from '../../src/launch/run/cpuProfileMerge';

function spin(ms: number): number {
  let x = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return x;
}

function chunks(n: number): CpuProfile[] {
  const s = new Session();
  s.connect();
  s.post('Profiler.enable');
  s.post('Profiler.setSamplingInterval', { interval: 200 });
  s.post('Profiler.start');
  const out: CpuProfile[] = [];
  for (let i = 0; i < n; i++) {
    spin(60);
    s.post('Profiler.stop', (err, r) => {
      if (!err) out.push(r.profile as unknown as CpuProfile);
    });
    if (i < n - 1) s.post('Profiler.start');
  }
  s.disconnect();
  return out;
}

test('chunks merge into one profile: every sample once, times absolute and ordered, one node per call path', () => {
  const parts = chunks(3);
  assert.equal(parts.length, 3);
  const total = parts.reduce((n, p) => n + (p.samples?.length ?? 0), 0);
  assert.ok(total > 30, `${total} samples`);
  const m = new CpuProfileMerger();
  // The file as the reader sees it: lines cut anywhere, the rest waiting for the next read.
  const text = parts.map((p) => `${JSON.stringify({ profile: p })}\n`).join('');
  let rest = '';
  let from = 0;
  for (const cut of [17, Math.floor(text.length / 2), text.length - 3, text.length]) {
    const piece = rest + text.slice(from, cut);
    from = cut;
    rest = piece.slice(addChunkLines(m, piece));
  }
  assert.equal(rest, '');
  assert.equal(m.chunks, 3);
  const merged = m.profile();
  assert.equal(merged.samples!.length, total, 'no sample lost nor counted twice');
  assert.equal(merged.startTime, parts[0].startTime);
  assert.equal(merged.endTime, parts[2].endTime);
  const last = merged.timeDeltas!.reduce((t, d) => t + d, merged.startTime);
  let t2 = parts[2].startTime;
  for (const d of parts[2].timeDeltas!) t2 += d;
  assert.equal(last, t2, 'the last sample keeps its absolute time');
  // spin's path appears once however many chunks saw it, and carries their samples.
  const spins = merged.nodes.filter((n) => n.callFrame.functionName === 'spin');
  const keys = new Set(spins.map((n) => merged.nodes.findIndex((p) => p.children?.includes(n.id))));
  assert.equal(keys.size, spins.length, 'one node per call path');
  const hits = spins.reduce((n, s) => n + (s.hitCount ?? 0), 0);
  assert.ok(hits > total / 10, `spin has ${hits} of ${total} samples`);
  assert.equal(
    merged.nodes.reduce((n, x) => n + (x.hitCount ?? 0), 0),
    total,
    'hit counts add up to the samples',
  );
  // The same chunk twice (a reader that went back) adds nothing: its samples are not after the last one kept.
  m.add(parts[2]);
  assert.equal(m.sampleCount, total);
});
