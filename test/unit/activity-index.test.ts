import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { CATEGORIES, type Profile } from '../../src/core/model';
import { activity, timelineWarmUp, timeSpan, type Activity } from '../../src/core/model/timeline';
import { fixtures } from '../helpers/paths';

// test/fixtures/timeline/phases.cpuprofile: a real `node --cpu-prof` run (make.sh there): idle, then two hot phases.
const load = () => cpuprofileImporter.load(join(fixtures, 'timeline', 'phases.cpuprofile'), { sourceMaps: false });

/** The activity by one pass over every sample, the rule the index must keep: bucket = floor((t - from) / width), the last one keeping the rest. */
function byPass(p: Profile, from: number, to: number, buckets: number): Activity {
  const n = Math.max(1, Math.floor(buckets));
  const width = Math.max(to - from, 1e-6) / n;
  const tl = p.timeline!;
  const rows = new Map<string, number[]>();
  let samples = 0;
  for (let i = 0; i < tl.times.length; i++) {
    const t = tl.times[i];
    if (t < from || t >= to) continue;
    samples++;
    const f = p.tree.frame[tl.nodes[i]];
    const cat = f >= 0 && p.frames[f] ? p.frames[f].category : 'unaccounted';
    if (!rows.has(cat)) rows.set(cat, new Array<number>(n).fill(0));
    rows.get(cat)![Math.min(n - 1, Math.floor((t - from) / width))]++;
  }
  const series: Activity['series'] = {};
  for (const c of CATEGORIES) if (rows.has(c)) series[c] = rows.get(c);
  let peak = 0;
  for (let b = 0; b < n; b++)
    peak = Math.max(
      peak,
      [...rows.values()].reduce((s, r) => s + r[b], 0),
    );
  return { from, to, bucketMs: width, series, peak, samples };
}

/** The real profile's samples repeated `times` times one after another: many index checkpoints from real stacks. */
function tiled(p: Profile, times: number): Profile {
  const tl = p.timeline!;
  const span = timeSpan(p)!.end;
  const n = tl.times.length;
  const nodes = new Uint32Array(n * times);
  const at = new Float64Array(n * times);
  for (let k = 0; k < times; k++)
    for (let i = 0; i < n; i++) {
      nodes[k * n + i] = tl.nodes[i];
      at[k * n + i] = tl.times[i] + k * span;
    }
  return { ...p, timeline: { nodes, times: at }, meta: { ...p.meta, durationMs: span * times } };
}

function windows(end: number): [number, number][] {
  // Whole, halves, odd cuts, a sliver, one past the end, one before any sample.
  return [
    [0, end],
    [0, end / 2],
    [end / 2, end],
    [end * 0.123, end * 0.777],
    [end * 0.5, end * 0.5 + 0.01],
    [end * 0.999, end * 2],
    [end * 2, end * 3],
  ];
}

test('the indexed activity equals a pass over every sample, for any window and bucket count', async () => {
  for (const p of [await load(), tiled(await load(), 37)]) {
    const end = timeSpan(p)!.end;
    assert.ok(p.timeline!.times.length > 500);
    for (const [from, to] of windows(end))
      for (const buckets of [1, 3, 7, 12, 100, 977, 2048]) {
        const got = activity(p, from, to, buckets);
        assert.deepEqual(got, byPass(p, from, to, buckets), `window ${from}..${to}, ${buckets} buckets`);
      }
  }
});

test('the index counted ahead in small steps answers as one counted at once', async () => {
  const once = tiled(await load(), 11);
  const stepped = tiled(await load(), 11);
  const warm = timelineWarmUp(stepped);
  let calls = 0;
  while (!warm(100)) calls++;
  assert.ok(calls > 100, `counted in ${calls} steps`);
  const end = timeSpan(once)!.end;
  for (const [from, to] of windows(end)) assert.deepEqual(activity(stepped, from, to, 640), activity(once, from, to, 640));
  // The steps counted every sample: the whole span's buckets hold them all.
  const all = activity(stepped, 0, end, 50);
  assert.equal(all.samples, stepped.timeline!.times.length);
  assert.equal(
    Object.values(all.series).reduce((s, r) => s + r!.reduce((x, y) => x + y, 0), 0),
    stepped.timeline!.times.length,
  );
});
