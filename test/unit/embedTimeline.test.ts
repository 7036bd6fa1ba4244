// The per-sample timeline as the offline HTML page carries it: what the exporter packs, the page reads back
// (with the web's DecompressionStream, which Node has too) into the same Timeline, ranges and all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { loadProfile } from '../../src/core/importers';
import { functionStats, type Profile } from '../../src/core/model';
import { activity, restrictToRange, timeSpan } from '../../src/core/model/timeline';
import { embeddedTimeline } from '../../src/core/exporters/html';
import { packTimeline, readEmbeddedTimeline, unpackTimeline } from '../../src/core/viewer/embedTimeline';
import { fixtures } from '../helpers/paths';

const PHASES = join(fixtures, 'timeline', 'phases.cpuprofile');

function selfShares(p: Profile): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of functionStats(p.tree, p.frames.length))
    out[p.frames[s.frame].name] = (out[p.frames[s.frame].name] ?? 0) + s.self / p.tree.weight;
  return out;
}

test('a real --cpu-prof timeline comes back from the page data sample for sample (times to the µs)', async () => {
  const p = await cpuprofileImporter.load(PHASES, { sourceMaps: false });
  const tl = p.timeline!;
  const e = embeddedTimeline(p)!;
  assert.equal(e.samples, tl.times.length);
  assert.equal(e.oneIn, undefined);
  assert.equal(e.weights, undefined);
  assert.match(e.data, /^[A-Za-z0-9+/]+=*$/, 'base64: nothing in it can bend the JSON or the script element');
  const back = await readEmbeddedTimeline(e, p.tree.count);
  assert.deepEqual([...back.nodes], [...tl.nodes]);
  for (let i = 0; i < tl.times.length; i++) assert.ok(Math.abs(back.times[i] - tl.times[i]) <= 0.0005 + 1e-9, `sample ${i}`);
  // The page's range then shows what the host's does.
  const span = timeSpan(p)!;
  const restored = { ...p, timeline: back };
  const a = restrictToRange(p, span.end / 2, span.end);
  const b = restrictToRange(restored, span.end / 2, span.end);
  assert.equal(b.tree.weight, a.tree.weight);
  assert.deepEqual(selfShares(b), selfShares(a));
  assert.deepEqual(activity(restored, 0, span.end, 50).series, activity(p, 0, span.end, 50).series);
});

test('perf weights (periods) come back; a folded profile has no timeline to embed', async () => {
  const perf = await loadProfile(join(fixtures, 'fuzz', 'seed.perf.txt'));
  const tl = perf.timeline!;
  assert.ok(tl.weights, 'perf samples weigh their period');
  const e = embeddedTimeline(perf)!;
  assert.equal(e.weights, 'int');
  const back = await readEmbeddedTimeline(e, perf.tree.count);
  assert.deepEqual([...back.weights!], [...tl.weights]);
  const folded = await loadProfile(join(fixtures, 'fuzz', 'seed.folded'));
  assert.equal(embeddedTimeline(folded), undefined);
  // Weights that are not whole numbers travel as doubles.
  const odd = { ...tl, weights: tl.weights.map((w) => w / 3) };
  const packed = packTimeline(odd);
  assert.equal(packed.header.weights, 'f64');
  assert.deepEqual([...unpackTimeline(packed.header, packed.bytes, perf.tree.count).weights!], [...odd.weights]);
});

test('over the cap, a random share is kept and weighted: the same shares within a few points, and a note says so', async () => {
  const p = await cpuprofileImporter.load(PHASES, { sourceMaps: false });
  const n = p.timeline!.times.length;
  const { header, bytes } = packTimeline(p.timeline!, 300);
  assert.ok(header.oneIn! >= 4, `one in ${header.oneIn}`);
  assert.ok(Math.abs(header.samples - n / header.oneIn!) < 0.25 * (n / header.oneIn!), `${header.samples} of ${n}`);
  assert.match(header.note!, new RegExp(`${header.samples}.*${n.toLocaleString('en-US')}`));
  assert.deepEqual(packTimeline(p.timeline!, 300).bytes, bytes, 'the same export twice is the same page');
  const thin = { ...p, timeline: unpackTimeline(header, bytes, p.tree.count) };
  const span = timeSpan(p)!;
  const whole = restrictToRange(thin, 0, span.end);
  assert.ok(Math.abs(whole.tree.weight - p.tree.weight) < 0.2 * p.tree.weight, `${whole.tree.weight} vs ${p.tree.weight}`);
  const real = selfShares(restrictToRange(p, span.end * 0.6, span.end));
  const est = selfShares(restrictToRange(thin, span.end * 0.6, span.end));
  assert.ok(Math.abs((est.secondHot ?? 0) - real.secondHot) < 0.1, `${est.secondHot} vs ${real.secondHot}`);
});

test('damaged page data is refused, not drawn', async () => {
  const p = await cpuprofileImporter.load(PHASES, { sourceMaps: false });
  const e = embeddedTimeline(p)!;
  const bytes = gunzipSync(Buffer.from(e.data, 'base64'));
  assert.throws(() => unpackTimeline(e, bytes.subarray(0, bytes.length - 10), p.tree.count), /cut short/);
  assert.throws(() => unpackTimeline(e, bytes, 3), /bad node/);
  await assert.rejects(readEmbeddedTimeline({ ...e, data: e.data.slice(0, 40) }, p.tree.count));
});
