import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cli, repoRoot } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';
import * as hi from '../helpers/hostileInputs';
import { ProfileError, type Profile } from '../../src/core/model';
import { ImportWorker } from '../../src/core/workerClient';

// Issue 37, items 3, 4, 7, 8, 16: files a repository ships that made an import take gigabytes or minutes.
// Each input is made here; the CLI runs as a child so its peak memory (maxRSS) is its own, and imports
// in the worker are timed against an ordinary input of the same size.

const write = tempFiles('nf-bounds-', '');
const preload = write(
  "process.on('exit', () => require('fs').writeFileSync(process.env.NF_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
);
const workerPath = join(repoRoot, 'dist', 'worker.js');

/** `node-flame report` on `path` as a child: exit code, stderr, wall time and peak RSS in MB. */
function report(path: string, args: string[] = [], timeoutMs = 60000) {
  const rssFile = `${path}.rss`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, cli, 'report', path, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, NF_RSS_FILE: rssFile },
    maxBuffer: 256 << 20,
  });
  const ms = performance.now() - t0;
  const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms, rssMb };
}

function oneLine(what: string, r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 2, `${what}: exit ${r.code}, stderr ${r.stderr.slice(0, 500)}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `${what}: ${lines.length} lines of stderr:\n${r.stderr.slice(0, 2000)}`);
  assert.match(lines[0], pattern);
}

async function timedImport(w: ImportWorker, path: string): Promise<{ ms: number; profile: Profile }> {
  const t0 = performance.now();
  const profile = await w.load(path, { sourceMaps: false });
  return { ms: performance.now() - t0, profile };
}

/** Best of two imports of each after a warm-up: the hostile one's time over the ordinary one's. */
async function ratio(what: string, hostile: string, normal: string): Promise<{ ratio: number; profile: Profile }> {
  const w = new ImportWorker(workerPath);
  try {
    await timedImport(w, normal);
    const n = Math.min((await timedImport(w, normal)).ms, (await timedImport(w, normal)).ms);
    const a = await timedImport(w, hostile);
    const b = await timedImport(w, hostile);
    const h = Math.min(a.ms, b.ms);
    const r = h / Math.max(n, 1);
    console.log(`${what}: hostile ${h.toFixed(0)} ms, normal ${n.toFixed(0)} ms (ratio ${r.toFixed(2)})`);
    return { ratio: r, profile: a.profile };
  } finally {
    await w.terminate();
  }
}

test('item 3: a 1 MB gzip bomb (1 GB inflated) ends in one line, exit 2, under 400 MB of RSS', () => {
  const path = write(hi.pprofGzipBomb(1024));
  assert.ok(readFileSync(path).length < 1.2e6);
  const r = report(path);
  console.log(`gzip bomb: ${r.ms.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(0)} MB`);
  oneLine('gzip bomb', r, /inflates past 128 MB/);
  assert.ok(r.rssMb < 400, `peak RSS ${r.rssMb.toFixed(0)} MB`);
});

test('item 3: locations of 1 000 inlined lines listed 1 000 times a sample are capped with warnings, under 600 MB of RSS', () => {
  const path = write(hi.pprofInlinedBomb());
  const r = report(path, ['--format', 'json', '--output', `${path}.json`]);
  console.log(`inlined-lines pprof (${readFileSync(path).length} B): ${r.ms.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(0)} MB`);
  assert.equal(r.code, 0, r.stderr.slice(0, 1000));
  assert.match(r.stderr, /warning: \d+ samples have stacks deeper than 16384 frames/);
  assert.match(r.stderr, /warning: \d+ samples are left out/);
  const json = JSON.parse(readFileSync(`${path}.json`, 'utf8')) as { samples: number };
  assert.ok(json.samples > 0);
  assert.ok(r.rssMb < 600, `peak RSS ${r.rssMb.toFixed(0)} MB`);
});

test('item 3: an import past the worker heap limit fails in the worker with a ProfileError, not in the host', async () => {
  const path = write(hi.pprofInlinedBomb());
  const w = new ImportWorker(workerPath, undefined, { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 });
  try {
    const e = await w.load(path, { sourceMaps: false }).then(
      () => null,
      (x: Error) => x,
    );
    assert.ok(e instanceof ProfileError, `got ${String(e)}`);
    assert.match(e.message, /more than 16 MB of memory/);
  } finally {
    await w.terminate();
  }
});

test('item 4: a length varint of 560 000 continuation bytes ends in one line, exit 2, within 5 s', () => {
  const path = write(hi.pprofLongVarint(560_000));
  assert.ok(readFileSync(path).length < 2000);
  const r = report(path, [], 20000);
  console.log(`long varint: ${r.ms.toFixed(0)} ms`);
  oneLine('long varint', r, /longer than 10 bytes/);
  assert.ok(r.ms < 5000, `${r.ms.toFixed(0)} ms`);
});

test('item 4: damaged pprof structure (a field past its message, a wire type a profile never uses) ends in one line, exit 2', () => {
  const good = hi.pprofBytes({ fns: 3, locs: 3, linesPerLoc: 1, samples: 3, depth: 2 });
  // Gzipped, as pprof files are: the sniffer then reads only the start and the importer must tell.
  const cut = gzipSync(Buffer.concat([good, Buffer.from([(2 << 3) | 2, 0x7f, 0x08])]));
  oneLine('field past its end', report(write(cut)), /runs past the end/);
  // Inside a sample, where the sniffer does not look.
  const wire = gzipSync(Buffer.concat([good, Buffer.from([(2 << 3) | 2, 5, (1 << 3) | 5, 1, 2, 3, 4])]));
  oneLine('wire type 5', report(write(wire)), /wire type 5 /);
});

test('item 7: a 40 000-deep .heapprofile chain imports within 4x an ordinary tree of the same size', async () => {
  const chain = write(hi.heapChain(40000));
  const flat = write(hi.heapFlat(40000));
  const { ratio: r, profile } = await ratio('heapprofile chain 40 000', chain, flat);
  assert.ok(r < 4, `ratio ${r.toFixed(2)}`);
  assert.equal(profile.tree.count, 40001);
  // Line totals stay right on the chain: the top line holds every byte below it.
  assert.equal(profile.tree.weight, 40000 * 1024);
});

test('item 16: a .heapprofile node with selfSize 1e308 is left out with a warning; no null or NaN in the report', () => {
  const doc = JSON.parse(hi.heapFlat(20)) as { head: { children: { selfSize: number }[] } };
  doc.head.children[0].selfSize = 1e308;
  doc.head.children[1].selfSize = 1.7e308;
  const path = write(JSON.stringify(doc));
  const r = report(path, ['--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout) as { samples: unknown };
  assert.equal(typeof json.samples, 'number');
  assert.ok(Number.isFinite(json.samples));
  assert.match(r.stderr, /warning: 2 nodes of the heap profile claim more than/);
  const text = report(path);
  assert.equal(text.code, 0);
  assert.doesNotMatch(text.stdout, /NaN|Infinity/);
});

test('item 8: 2 000 code objects claiming 64 MiB each (in a 1 MB log) import within 4x the same log with 256-byte objects', async () => {
  const huge = write(hi.v8logCodeSizes(2000));
  const small = write(hi.v8logCodeSizes(2000, 256));
  const { ratio: r, profile } = await ratio('v8log 64 MiB code x 2 000', huge, small);
  assert.ok(r < 4, `ratio ${r.toFixed(2)}`);
  // The first objects still resolve in full; the rest at their start (where each tick is).
  assert.ok(profile.frames.filter((f) => /^work\d+$/.test(f.name)).length >= 1990);
  assert.ok(profile.warnings.some((w) => /first 64 KiB only/.test(w)));
});

test('item 9: the inlined-lines pprof exports to bounded HTML, folded and speedscope files (the frames, nodes and output are capped)', () => {
  const path = write(hi.pprofInlinedBomb());
  for (const format of ['html', 'folded', 'speedscope']) {
    const out = `${path}.${format}`;
    const r = report(path, ['--format', format, '--output', out], 120000);
    const mb = readFileSync(out).length / (1 << 20);
    console.log(`inlined-lines pprof as ${format}: ${mb.toFixed(1)} MB, ${r.ms.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(0)} MB`);
    assert.equal(r.code, 0, r.stderr.slice(0, 500));
    assert.ok(mb < 32, `${format}: ${mb.toFixed(1)} MB`);
    assert.ok(r.rssMb < 800, `${format}: peak RSS ${r.rssMb.toFixed(0)} MB`);
  }
});

for (const [what, input, restName] of [
  ['40 000-deep heap chain', () => hi.heapChain(40000), /^\(other stacks, 38\.\d MB\) \d+$/],
  ['pprof of 8 000 distinct stacks ~500 deep', () => hi.pprofDeepDistinct(), /^\(other stacks, \d\.\d\d s\) \d+$/],
] as const)
  test(`item 9: an export over its size budget is written capped with a warning, not refused (${what} as folded)`, () => {
    const bytes = input();
    const path = write(bytes);
    const out = `${path}.folded`;
    const r = report(path, ['--format', 'folded', '--output', out], 120000);
    assert.equal(r.code, 0, r.stderr.slice(0, 500));
    const text = readFileSync(out, 'utf8');
    const mb = text.length / (1 << 20);
    const warning = r.stderr.split('\n').find((l) => l.startsWith('node-flame: warning: the folded export'));
    console.log(
      `${what} (${(bytes.length / 1024).toFixed(0)} KB) as folded: ${mb.toFixed(1)} MB, ${r.ms.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(0)} MB; ${warning}`,
    );
    assert.match(
      warning ?? '',
      /over its size limit .*: it keeps the \d+ heaviest of \d+ stacks; the other \d+ stacks \(.+, \d+\.\d % of the total\)/,
    );
    // The weights add up to what the json report counts: nothing cut is lost.
    const json = report(path, ['--format', 'json']);
    const samples = (JSON.parse(json.stdout) as { samples: number }).samples;
    const lines = text.trimEnd().split('\n');
    const sum = lines.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    assert.ok(Math.abs(sum - samples) <= 1e-6 * samples, `folded ${sum} vs json ${samples}`);
    assert.match(lines.find((l) => l.startsWith('(other stacks, ')) ?? '', restName);
    assert.ok(mb < 80, `${mb.toFixed(1)} MB`);
    assert.ok(r.rssMb < 800, `peak RSS ${r.rssMb.toFixed(0)} MB`);
  });
