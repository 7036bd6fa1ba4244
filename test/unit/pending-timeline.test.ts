// A trace's two processes: their timeline is merged when first read, and what a report reads before (each process's
// gaps and samples, the last sample's time) is the same as what the merged timeline gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readChromeTrace } from '../../src/core/importers/chromeTrace';
import type { Profile } from '../../src/core/model';
import { pendingParts } from '../../src/core/model/pendingTimeline';
import { eachThreadsSamples, selectThreads } from '../../src/core/model/processes';
import { mergeProfiles } from '../../src/core/model/merge';
import { packTimeline } from '../../src/core/model/packedTimeline';
import { lastSampleTime } from '../../src/core/model/timeline';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-pending-', '.json');

/** Two processes started 100.5 µs apart, with steps of 50 ms and more among short ones. */
function twoProcessTrace(): string {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const frame = (functionName: string, url = '') => ({ functionName, scriptId: '0', url, lineNumber: url ? 3 : -1, columnNumber: 1 });
  const events: unknown[] = [];
  for (const [pid, start] of [
    [100, 1547444685],
    [200, 1547444785.5],
  ]) {
    events.push({ pid, tid: pid + 1, ts: start, ph: 'P', name: 'Profile', id: '0x1', args: { data: { startTime: start } } });
    const nodes = [
      { id: 1, callFrame: frame('(root)') },
      { id: 2, callFrame: frame('(idle)'), parent: 1 },
      { id: 3, callFrame: frame('work', 'file:///app/a.js'), parent: 1 },
      { id: 4, callFrame: frame('inner', 'file:///app/a.js'), parent: 3 },
    ];
    for (let c = 0; c < 8; c++) {
      const samples: number[] = [];
      const timeDeltas: number[] = [];
      for (let i = 0; i < 300; i++) {
        samples.push(2 + Math.floor(rnd() * 3));
        timeDeltas.push(rnd() < 0.03 ? Math.floor(50000 + rnd() * 300000) : Math.floor(500 + rnd() * 1500));
      }
      const cpuProfile = c === 0 ? { nodes, samples } : { samples };
      events.push({ pid, tid: pid + 2, ts: start, ph: 'P', name: 'ProfileChunk', id: '0x1', args: { data: { cpuProfile, timeDeltas } } });
    }
  }
  return file(JSON.stringify({ traceEvents: events }));
}

function whatFindingsRead(p: Profile) {
  const groups = p.threads.map((t) => [t.name]);
  return {
    last: lastSampleTime(p),
    each: eachThreadsSamples(p, groups, 50).map((s) => ({ gaps: s.gaps, nodes: Array.from(s.nodes() ?? []) })),
  };
}

test('a trace of two processes: gaps, samples and last time without the merge are those of the merged timeline', async () => {
  const path = twoProcessTrace();
  const lazy = await readChromeTrace(path);
  assert.ok(pendingParts(lazy), 'the merge waits');
  const before = whatFindingsRead(lazy);
  assert.ok(pendingParts(lazy), 'reading gaps and the last time did not merge');
  assert.ok(before.each.every((s) => s.gaps && s.gaps.gaps > 0 && s.nodes.length === 2400));

  const merged = await readChromeTrace(path);
  assert.ok(merged.timeline && merged.timeline.nodes.length === 4800);
  assert.equal(pendingParts(merged), undefined, 'read once, the timeline is a plain property');
  assert.deepEqual(whatFindingsRead(merged), before);
  // The copy a spread makes has the merged timeline, as it had when the merge was not put off.
  assert.deepEqual([...{ ...lazy }.timeline!.nodes], [...merged.timeline.nodes]);
});

test("a run's merge is made at once (its parts may be a live reader's, which change after it); a trace's may wait", async () => {
  const trace = await readChromeTrace(twoProcessTrace());
  const parts = () =>
    trace.threads.map((t) => {
      const profile = selectThreads(trace, [t.name]);
      // A sample a ms: whole µs, packed as a run's reader packs its processes.
      const tl = { nodes: profile.timeline!.nodes, times: Float64Array.from(profile.timeline!.nodes, (_, i) => i) };
      return { profile, thread: t.name, packed: packTimeline(tl, profile.tree.count) };
    });
  const run = mergeProfiles(parts(), { durationMs: 1000 });
  assert.equal(pendingParts(run), undefined, 'merged at once');
  assert.equal(run.timeline?.nodes.length, 4800);
  const waits = mergeProfiles(parts(), { durationMs: 1000 }, { timelineMayWait: true });
  assert.ok(pendingParts(waits), 'the trace importer lets it wait');
  assert.deepEqual([...waits.timeline!.nodes], [...run.timeline.nodes]);
});
