import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportProfile } from '../../src/core/exporters';
import { capForExport, MAX_FOLDED_CHARS } from '../../src/core/exporters/stackBudget';
import { loadProfile } from '../../src/core/importers';
import { ProfileBuilder } from '../../src/core/model';
import type { SpeedscopeFile } from '../../src/core/exporters/speedscope';
import { tempFiles } from '../helpers/tempFiles';
import * as hi from '../helpers/hostileInputs';

// Issue 37, item 9: an export over its size budget keeps the heaviest stacks and names the rest as one node,
// with a warning; the total weight is the profile's.

const file = tempFiles('nf-export-budget-', '.heapprofile');

/** main → a|b|c|d|e, each with its own weight (e heaviest), and a timeline of one sample per unit of weight. */
function fiveStacks() {
  const b = new ProfileBuilder('cpuprofile', { durationMs: 10 });
  const main = b.frame({ name: 'main', file: '', line: 0, column: 0, category: 'app' });
  const leaves: number[] = [];
  const weights = [1, 2, 3, 4, 50];
  weights.forEach((w, i) => {
    const f = b.frame({ name: 'abcde'[i], file: '', line: 0, column: 0, category: 'app' });
    leaves.push(b.sample([main, f], w));
  });
  const nodes = weights.flatMap((w, i) => Array<number>(w).fill(leaves[i]));
  b.timeline = { nodes: Uint32Array.from(nodes), times: Float64Array.from(nodes, (_, i) => i) };
  return b.build();
}

test('a profile over the node budget keeps its heaviest stacks; the others are one named node with their weight', () => {
  const p = fiveStacks();
  assert.equal(p.tree.count, 7);
  // Root, main, the remainder and 2 leaves.
  const { profile: c, warning } = capForExport(p, 'html', { nodes: 5, stackFrames: 0, stackChars: 0 });
  assert.equal(c.tree.weight, p.tree.weight);
  assert.ok(c.tree.count <= 5, `${c.tree.count} nodes`);
  const folded = exportProfile(c, 'folded').trim().split('\n').sort();
  assert.deepEqual(folded, ['(other stacks, 6 samples) 6', 'main;d 4', 'main;e 50']);
  assert.match(
    warning ?? '',
    /html export is over its size limit \(5 call tree nodes\): it keeps the 2 heaviest of 5 stacks; the other 3 stacks \(6 samples, 10\.0 % of the total\)/,
  );
  // The timeline follows: the cut samples are on the remainder.
  const rest = c.frames.findIndex((f) => f.name === '(other stacks, 6 samples)');
  const onRest = [...c.timeline!.nodes].filter((n) => c.tree.frame[n] === rest).length;
  assert.equal(onRest, 6);
  assert.equal(c.timeline!.nodes.length, 60);
  // Within the budget: the same profile, no warning.
  const same = capForExport(p, 'html', { nodes: 7, stackFrames: 0, stackChars: 0 });
  assert.equal(same.profile, p);
  assert.equal(same.warning, undefined);
});

test('a 40 000-deep heap chain exports to folded and speedscope capped, the cut weight named, the total kept, one warning', async () => {
  const p = await loadProfile(file(hi.heapChain(40000)), { sourceMaps: false });
  const total = p.tree.weight;
  assert.equal(total, 40000 * 1024);

  const warnings: string[] = [];
  const t0 = performance.now();
  const folded = exportProfile(p, 'folded', { warn: (w) => warnings.push(w) });
  const ms = performance.now() - t0;
  const lines = folded.trimEnd().split('\n');
  const sum = lines.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  assert.equal(sum, total);
  assert.ok(folded.length <= MAX_FOLDED_CHARS + 16 * lines.length, `${folded.length} chars`);
  const restLine = lines.find((l) => l.startsWith('(other stacks, '));
  assert.ok(restLine, 'a remainder line');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^the folded export is over its size limit \(67108864 characters of stacks\): it keeps the \d+ heaviest of 40000 stacks; the other \d+ stacks \(38\.\d MB, 9\d\.\d % of the total\)/,
  );
  console.log(
    `heap chain 40 000 → folded: ${(folded.length / 1e6).toFixed(1)} MB, ${lines.length} lines, ${ms.toFixed(0)} ms; ${warnings[0]}`,
  );

  warnings.length = 0;
  const ss = JSON.parse(exportProfile(p, 'speedscope', { warn: (w) => warnings.push(w) })) as SpeedscopeFile;
  const weights = ss.profiles.flatMap((x) => x.weights);
  assert.equal(
    weights.reduce((s, w) => s + w, 0),
    total,
  );
  const frames = ss.profiles.flatMap((x) => x.samples).reduce((s, st) => s + st.length, 0);
  assert.ok(frames < 1 << 22, `${frames} frames`);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /speedscope export is over its size limit \(4194304 frames in all its stacks\)/);
  assert.ok(ss.shared.frames.some((f) => f.name.startsWith('(other stacks, 3')));

  // HTML and cpuprofile write every node once: 40 001 nodes fit, nothing cut, nothing said.
  warnings.length = 0;
  exportProfile(p, 'cpuprofile', { warn: (w) => warnings.push(w) });
  assert.deepEqual(warnings, []);
});
