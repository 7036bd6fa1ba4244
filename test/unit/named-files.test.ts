import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths';
import { ProfileError, type Profile } from '../../src/core/model';
import { ImportWorker } from '../../src/core/workerClient';
import { NamedFileError, readNamedText, readNamedTextSync } from '../../src/core/namedFiles';
import { readRun, saveSummary } from '../../src/extension/history/runs';

// Paths a profile names (source maps, sourcemaps.json, shared libraries, run.json) that are not regular files:
// a FIFO blocks an open for ever, /dev/stdin blocks a read, /dev/zero never ends, a folder fails to read.
// Each import must end quickly with the file refused and said so, never hang or crash. Imports run in the
// import worker, so a hang fails its test instead of stalling the suite.
const dir = mkdtempSync(join(tmpdir(), 'nf-named-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const fifo = (name: string) => {
  const p = join(dir, name);
  execFileSync('mkfifo', [p]);
  return p;
};
const link = (name: string, target: string) => {
  const p = join(dir, name);
  symlinkSync(target, p);
  return p;
};

async function importWithin(path: string, ms = 3000): Promise<{ result: Profile | ProfileError; ms: number }> {
  const w = new ImportWorker(join(repoRoot, 'dist', 'worker.js'));
  let timer: NodeJS.Timeout | undefined;
  const t0 = Date.now();
  try {
    const hang = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (hang)`)), ms + 1500)),
    );
    const result = await Promise.race([w.load(path).catch((e: Error) => (e instanceof ProfileError ? e : Promise.reject(e))), hang]);
    return { result, ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
    await w.terminate();
  }
}

/** A .cpuprofile with one sampled function in `script`, so source maps are looked up for it. */
function cpuprofileFor(name: string, script: string): string {
  const p = join(dir, name);
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
    { id: 2, callFrame: { functionName: 'work', url: pathToFileURL(script).href, lineNumber: 0, columnNumber: 0 }, children: [] },
  ];
  writeFileSync(p, JSON.stringify({ nodes, startTime: 0, endTime: 3000, samples: [2, 2, 2], timeDeltas: [1000, 1000, 1000] }));
  return p;
}

function assertProfile(r: Profile | ProfileError, what: string): Profile {
  assert.ok(!(r instanceof Error), `${what}: ${r instanceof Error ? r.message : ''}`);
  return r;
}

test('a source map named by sourceMappingURL that is a FIFO, /dev/stdin or /dev/zero is not read; the profile opens', async () => {
  for (const [label, target] of [
    ['fifo', fifo('map-fifo.map')],
    ['stdin', link('map-stdin.map', '/dev/stdin')],
    ['zero', link('map-zero.map', '/dev/zero')],
    ['folder', (mkdirSync(join(dir, 'map-dir.map')), join(dir, 'map-dir.map'))],
  ] as const) {
    const script = join(dir, `app-${label}.js`);
    writeFileSync(script, `function work() {}\n//# sourceMappingURL=${target.split('/').pop()}\n`);
    const rss0 = process.memoryUsage().rss;
    const { result, ms } = await importWithin(cpuprofileFor(`${label}.cpuprofile`, script));
    const p = assertProfile(result, label);
    assert.ok(
      p.frames.some((f) => f.name === 'work' && f.file === script && !f.generated),
      `${label}: the frame stays on the script`,
    );
    assert.ok(ms < 3000, `${label}: ${ms} ms`);
    console.log(
      `[named] sourceMappingURL → ${label}: profile in ${ms} ms, this process grew ${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(1)} MiB`,
    );
  }
  // The script's own `.map` beside it can be a FIFO too.
  const script = join(dir, 'app-beside.js');
  writeFileSync(script, 'function work() {}\n');
  fifo('app-beside.js.map');
  const { result, ms } = await importWithin(cpuprofileFor('beside.cpuprofile', script));
  assertProfile(result, 'x.js.map FIFO');
  assert.ok(ms < 3000, `x.js.map FIFO: ${ms} ms`);
});

test('a sourcemaps.json that is a FIFO, or that names a FIFO as a map, does not block the import', async () => {
  for (const label of ['json-fifo', 'map-fifo']) {
    const run = join(dir, `run-${label}`);
    mkdirSync(run);
    const script = join(run, 'app.js');
    writeFileSync(script, 'function work() {}\n');
    if (label === 'json-fifo') execFileSync('mkfifo', [join(run, 'sourcemaps.json')]);
    else {
      execFileSync('mkfifo', [join(run, 'announced.map')]);
      writeFileSync(join(run, 'sourcemaps.json'), JSON.stringify({ [pathToFileURL(script).href]: 'announced.map' }));
    }
    const p = join(run, 'x.cpuprofile');
    writeFileSync(p, readFileSync(cpuprofileFor(`${label}.cpuprofile`, script)));
    const { result, ms } = await importWithin(p);
    assertProfile(result, label);
    assert.ok(ms < 3000, `${label}: ${ms} ms`);
  }
});

test('shared libraries that are a FIFO, a folder, a device or /dev/zero get no symbols and a warning; the import goes on', async () => {
  const libs: [string, string, RegExp][] = [
    ['fifo', fifo('libfifo.so'), /pipe \(FIFO\)/],
    ['folder', (mkdirSync(join(dir, 'libdir.so')), join(dir, 'libdir.so')), /a folder/],
    ['device', '/dev/null', /a device/],
    ['zero', link('libzero.so', '/dev/zero'), /a device/],
    ['stdin', link('libstdin.so', '/dev/stdin'), /not a regular file|a device|pipe|socket/],
  ];
  const lines = ['v8-version,11,3,244,8,-node.38,0', 'v8-platform,linux,linux'];
  libs.forEach(([, path], i) =>
    lines.push(
      `shared-library,${path},0x${(0x7f0000000000 + i * 0x100000).toString(16)},0x${(0x7f0000000000 + i * 0x100000 + 0x80000).toString(16)},0`,
    ),
  );
  lines.push('shared-library-end', 'profiler,begin,1000');
  libs.forEach((_, i) => lines.push(`tick,0x${(0x7f0000000100 + i * 0x100000).toString(16)},${2000 + i},0,0x0,0`));
  const log = join(dir, 'libs-v8.log');
  writeFileSync(log, lines.join('\n') + '\n');
  const { result, ms } = await importWithin(log);
  const p = assertProfile(result, 'libraries');
  assert.ok(ms < 3000, `${ms} ms`);
  for (const [label, path, why] of libs) {
    const w = p.warnings.find((x) => x.startsWith(`${path}:`));
    assert.ok(w && why.test(w), `${label}: a warning says why ${path} was not read (warnings: ${p.warnings.join(' | ')})`);
  }
  assert.equal(p.tree.weight, libs.length, 'every tick is kept, named by library and offset');
  console.log(`[named] ${libs.length} non-regular libraries: profile in ${ms} ms; e.g. "${p.warnings[0]}"`);
});

test('a profile file that is a FIFO or a symlink to /dev/zero is refused with a clear error', async () => {
  for (const [label, path] of [
    ['fifo', fifo('isolate-0x1-1-v8.log')],
    ['zero', link('zero-v8.log', '/dev/zero')],
  ] as const) {
    const { result, ms } = await importWithin(path);
    assert.ok(result instanceof ProfileError, `${label}: ${String(result)}`);
    assert.match(result.message, /not a regular file|a device|pipe/);
    assert.ok(ms < 3000, `${label}: ${ms} ms`);
  }
});

test('a V8 log whose sibling isolate log or proc maps file is a FIFO still imports', async () => {
  const run = join(dir, 'siblings');
  mkdirSync(run);
  const log = join(run, 'isolate-0x10-4242-v8.log');
  writeFileSync(
    log,
    'v8-version,11,3,244,8,-node.38,0\nv8-platform,linux,linux\nprofiler,begin,1000\ncode-creation,JS,10,100,0x1000,64,f /a.js:1:1,0x2000,~\ntick,0x1010,2000,0,0x0,0\n',
  );
  execFileSync('mkfifo', [join(run, 'isolate-0x20-4242-v8.log'), join(run, 'proc-maps-4242.txt')]);
  const { result, ms } = await importWithin(log);
  const p = assertProfile(result, 'siblings');
  assert.equal(p.tree.weight, 1);
  assert.ok(ms < 3000, `${ms} ms`);
});

test('run.json as a FIFO: the run list and the summary cache neither block nor replace it', async () => {
  const run = join(dir, '20260101-120000-prof');
  mkdirSync(run);
  execFileSync('mkfifo', [join(run, 'run.json')]);
  writeFileSync(join(run, 'isolate-0x1-7-v8.log'), 'v8-version,11,3,244,8,-node.38,0\n');
  const t0 = Date.now();
  const info = await readRun(run, '20260101-120000-prof');
  await saveSummary(run, { samples: 1 } as never, true);
  assert.ok(info, 'the run is still listed from its files');
  assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
  assert.throws(
    () => readNamedTextSync(join(run, 'run.json'), 1 << 20),
    (e) => e instanceof NamedFileError && e.reason === 'not-regular',
  );
  await assert.rejects(
    readNamedText('/dev/stdin', { maxBytes: 1 << 20 }),
    (e) => e instanceof NamedFileError && e.reason === 'not-regular',
  );
  await assert.rejects(
    readNamedText(join(dir, 'nope.json'), { maxBytes: 1 << 20 }),
    (e) => e instanceof NamedFileError && e.reason === 'missing',
  );
  const big = join(dir, 'big.json');
  writeFileSync(big, Buffer.alloc(2048, 0x20));
  await assert.rejects(readNamedText(big, { maxBytes: 1024 }), (e) => e instanceof NamedFileError && e.reason === 'too-big');
  assert.equal((await readNamedText(big, { maxBytes: 4096 })).length, 2048);
});
