// The one merge of profile pieces (live chunks, attach parts): where the two merges it replaced differed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuProfileMerger, mergeCpuProfiles, type CpuProfile } from '../../src/launch/run/cpuProfileMerge';

const cf = (functionName: string) => ({ functionName, scriptId: '1', url: 'file:///a.js', lineNumber: 0, columnNumber: 0 });

test('hit counts come from the samples kept, deoptReason is kept, a second parentless tree hangs under the root', () => {
  const a: CpuProfile = {
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2] },
      // hitCount says 5, the samples 2: the samples win (the importer counts samples).
      { id: 2, callFrame: cf('f'), hitCount: 5, deoptReason: 'Insufficient type feedback' },
      { id: 3, callFrame: cf('stray'), hitCount: 1 },
    ],
    startTime: 0,
    endTime: 300,
    samples: [2, 2, 3],
    timeDeltas: [100, 100, 50],
  };
  const b: CpuProfile = {
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2] },
      { id: 2, callFrame: cf('f'), hitCount: 1 },
    ],
    // Overlaps a: its first sample (at 240) is before a's last (250) and is dropped, and not counted.
    startTime: 200,
    endTime: 500,
    samples: [2, 2],
    timeDeltas: [40, 100],
  };
  const m = mergeCpuProfiles([a, b]);
  const f = m.nodes.find((n) => n.callFrame.functionName === 'f')!;
  const stray = m.nodes.find((n) => n.callFrame.functionName === 'stray')!;
  assert.equal(f.hitCount, 3);
  assert.equal(f.deoptReason, 'Insufficient type feedback');
  assert.equal(stray.hitCount, 1, "a parentless node's samples are kept");
  assert.ok(m.nodes[0].children!.includes(stray.id), 'under the one root');
  assert.equal(m.nodes.filter((n) => n.callFrame.functionName === '(root)').length, 1);
  assert.equal(m.samples!.length, 4);
  assert.equal(
    m.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0),
    m.samples!.length,
    'hit counts agree with the samples',
  );
});

test('a piece without samples gives its hit counts; the merge goes on incrementally', () => {
  const m = new CpuProfileMerger();
  m.add({
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2] },
      { id: 2, callFrame: cf('g'), hitCount: 4 },
    ],
    startTime: 0,
    endTime: 10,
  });
  assert.equal(m.profile().nodes.find((n) => n.callFrame.functionName === 'g')!.hitCount, 4);
  m.add({
    nodes: [
      { id: 9, callFrame: cf('(root)'), children: [8] },
      { id: 8, callFrame: cf('g') },
    ],
    startTime: 10,
    endTime: 20,
    samples: [8],
    timeDeltas: [5],
  });
  const p = m.profile();
  assert.equal(p.nodes.find((n) => n.callFrame.functionName === 'g')!.hitCount, 5);
  assert.equal(m.chunks, 2);
  assert.equal(p.endTime, 20);
});
