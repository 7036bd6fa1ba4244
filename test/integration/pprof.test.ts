import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile as PprofProfile } from 'pprof-format';
import { cli } from '../helpers/paths';
import { expressExample, profileExpressApp } from '../helpers/expressApp';
import { goMissing, goPprof, topRows } from '../helpers/goPprof';
import { datadogPprof, runHotProgram } from '../helpers/datadogPprof';

const work = mkdtempSync(join(tmpdir(), 'nf-pprof-'));
after(() => rmSync(work, { recursive: true, force: true }));

const report = (args: string[], cwd = work) =>
  spawnSync(process.execPath, [cli, 'report', ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

interface JsonReport {
  samples: number;
  unit: string;
  sampleType?: string;
  sampleTypes?: { type: string; unit: string }[];
  functions: { name: string; file: string | null; line: number | null; self: number; total: number }[];
}
const json = (args: string[]): JsonReport => {
  const r = report([...args, '--format', 'json', '--top', '100000']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as JsonReport;
};

test(
  'a wall and a heap profile written by @datadog/pprof open with the hot function at its file:line, in every sample type',
  { timeout: 600_000 },
  async (t) => {
    const dd = await datadogPprof(work);
    if ('skip' in dd) return t.skip(dd.skip);
    const { program, hotLine, wall, heap } = runHotProgram(dd.dir, mkdtempSync(join(work, 'hot-')));

    const w = json([wall]);
    assert.equal(w.unit, 'ms', 'wall nanoseconds are reported in ms');
    assert.equal(w.sampleType, 'wall', "Datadog sets no default type: the last one, as Google's pprof picks");
    assert.deepEqual(
      w.sampleTypes?.map((x) => x.type),
      ['sample', 'wall'],
    );
    const top = w.functions[0];
    assert.deepEqual([top.name, top.file, top.line], ['hotLoop', program, hotLine], JSON.stringify(w.functions.slice(0, 3)));
    assert.ok(top.self > 0.5, `hotLoop holds most of the wall time: ${top.self}`);

    const text = report([wall]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^Unit: ms; sample type "wall" \(the file has: sample, wall\)\.$/m);
    assert.ok(text.stdout.includes(`hotLoop ${program}:${hotLine}`), text.stdout);

    const counted = json([wall, '--sample-type', 'sample']);
    assert.equal(counted.unit, 'samples');
    assert.equal(counted.functions[0].name, 'hotLoop');
    assert.ok(Number.isInteger(counted.samples) && counted.samples > 50, `sample counts: ${counted.samples}`);

    const space = json([heap]);
    assert.deepEqual([space.unit, space.sampleType], ['bytes', 'inuse_space']);
    const objects = json([heap, '--sample-type', 'inuse_objects']);
    assert.equal(objects.unit, 'objects');
    assert.ok(
      objects.functions.some((f) => f.name === 'main' && f.file === program),
      'main allocates the kept arrays',
    );

    const wrong = report([wall, '--sample-type', 'alloc_space']);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /no sample type "alloc_space" in this profile \(it has: sample, wall\)/);
  },
);

test(
  "the guide's --prof log exported to pprof: Google's pprof -top lists the same top functions within one point",
  { timeout: 900_000 },
  async (t) => {
    const missing = goMissing();
    if (missing) return t.skip(missing);
    const dir = mkdtempSync(join(work, 'guide-'));
    copyFileSync(join(expressExample, 'app.js'), join(dir, 'app.js'));
    const file = await profileExpressApp({ cwd: dir, profiler: 'prof', load: { requests: 100, connections: 8 } });
    const out = join(dir, 'guide.pb.gz');
    const exported = report([file, '--format', 'pprof', '--output', out]);
    assert.equal(exported.status, 0, exported.stderr);

    // Every node, so names split across files are summed on both sides alike.
    const listing = goPprof(['-top', '-nodecount=100000', '-nodefraction=0', out]);
    assert.match(listing, /^Type: cpu$/m);
    assert.match(listing, /^Duration: [\d.]+s, Total samples = /m);
    const rows = topRows(listing);
    const theirs = new Map<string, number>();
    for (const r of rows) theirs.set(r.name, (theirs.get(r.name) ?? 0) + r.flat);
    const ours = new Map<string, number>();
    for (const f of json([file]).functions) ours.set(f.name, (ours.get(f.name) ?? 0) + f.self);
    const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 10);
    for (const [name, share] of top(ours)) {
      assert.ok(theirs.has(name), `pprof -top lists ${name}`);
      assert.ok(
        Math.abs(theirs.get(name)! - share) <= 0.01,
        `${name}: node-flame ${(share * 100).toFixed(2)}%, pprof ${(theirs.get(name)! * 100).toFixed(2)}%`,
      );
    }
    // The same five lead, in the same order up to near-ties (pprof rounds its shares): the i-th of pprof's
    // holds, in our report, within one point of our i-th.
    const ourTop = top(ours).slice(0, 5);
    top(theirs)
      .slice(0, 5)
      .forEach(([name], i) =>
        assert.ok(
          Math.abs((ours.get(name) ?? 0) - ourTop[i][1]) <= 0.01,
          `pprof's #${i + 1} ${name}: ${((ours.get(name) ?? 0) * 100).toFixed(2)}% here, our #${i + 1} ${ourTop[i][0]} ${(ourTop[i][1] * 100).toFixed(2)}%`,
        ),
      );
  },
);

/** Per function (name and file), the sum of flat values of one sample type, and the total. */
function flatByFunction(path: string, type: string): { total: number; flat: Map<string, number> } {
  const p = PprofProfile.decode(gunzipSync(readFileSync(path)));
  const s = p.stringTable.strings;
  const ti = p.sampleType.findIndex((v) => s[Number(v.type)] === type);
  assert.ok(ti >= 0, `${path} has sample type ${type}`);
  const fn = new Map(p.function.map((f) => [Number(f.id), `${s[Number(f.name)]} ${s[Number(f.filename)]}`]));
  const leaf = new Map(p.location.map((l) => [Number(l.id), fn.get(Number(l.line[0]?.functionId)) ?? `0x${l.address.toString(16)}`]));
  const flat = new Map<string, number>();
  let total = 0;
  for (const smp of p.sample) {
    const v = Number(smp.value[ti]);
    total += v;
    const k = smp.locationId.length ? leaf.get(Number(smp.locationId[0]))! : '(no stack)';
    flat.set(k, (flat.get(k) ?? 0) + v);
  }
  return { total, flat };
}

test(
  'round trip: a pprof of the guide app by @datadog/pprof → Node Flame → pprof keeps the total and the top 10 functions',
  { timeout: 600_000 },
  async (t) => {
    const dd = await datadogPprof(work);
    if ('skip' in dd) return t.skip(dd.skip);
    const dir = mkdtempSync(join(work, 'rt-'));
    copyFileSync(join(expressExample, 'app.js'), join(dir, 'app.js'));
    // `-r @datadog/pprof` itself throws at exit in 5.20 (its time profiler stops in an exit handler of its own
    // that runs first), so this preload does what it means to: wall profile from the start, written at exit.
    const preload = join(dir, 'dd-preload.js');
    writeFileSync(
      preload,
      `const fs = require('fs');
process.once('exit', () => fs.writeFileSync('pprof-profile-' + process.pid + '.pb.gz', pprof.encodeSync(pprof.time.stop())));
const pprof = require(${JSON.stringify(dd.dir)});
pprof.time.start({});
`,
    );
    const original = await profileExpressApp({
      cwd: dir,
      profiler: { preload, output: /^pprof-profile-\d+\.pb\.gz$/ },
      load: { requests: 60, connections: 8 },
    });
    const again = join(dir, 'again.pb.gz');
    const r = report([original, '--format', 'pprof', '--output', again]);
    assert.equal(r.status, 0, r.stderr);

    const a = flatByFunction(original, 'wall');
    const b = flatByFunction(again, 'wall');
    assert.ok(a.total > 0);
    // Values are whole nanoseconds; Node Flame holds ms, so each of its nodes may round by half a nanosecond.
    assert.ok(Math.abs(a.total - b.total) <= a.flat.size + 1000, `total wall ns: ${a.total} → ${b.total}`);
    const top10 = (m: Map<string, number>) =>
      [...m]
        .map(([k, v]) => [k, Math.round(v / 1000)] as const)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .slice(0, 10);
    assert.deepEqual(top10(b.flat), top10(a.flat));
    assert.ok(
      // The wall profiler names the hashing by the native job method pbkdf2Sync calls (`run`, no file) when it sees it.
      top10(a.flat).some(([k]) => /^pbkdf2Sync /.test(k) || /^sha512/.test(k) || /pbkdf2/i.test(k) || k === 'run '),
      `the hashing leads: ${JSON.stringify(top10(a.flat))}`,
    );
  },
);
