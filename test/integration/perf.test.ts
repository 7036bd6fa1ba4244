import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProfile } from '../../src/core/importers';
import type { Frame, Profile } from '../../src/core/model';
import { cleanupPerfMaps, perfRecordCommand, preflightPerf } from '../../src/launch/perf';
import { cli } from '../helpers/paths';

const JS_TIERS = new Set(['interpreted', 'sparkplug', 'maglev', 'turbofan']);
const isJs = (f: Frame): boolean => (f.tier !== undefined && JS_TIERS.has(f.tier)) || ['app', 'dependency', 'node'].includes(f.category);

const FIB = `
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function churn(i) { let s = ''; for (let k = 0; k < 200; k++) s += String.fromCharCode(97 + ((i + k) % 26)); return s.length; }
function work() {
  let acc = 0;
  const end = Date.now() + 1200;
  for (let i = 0; Date.now() < end; i++) { acc += fib(20); if (i % 4 === 0) acc += churn(i); }
  return acc;
}
console.log(work());
`;

const ZLIB = `
const zlib = require('zlib');
function makeData() {
  const b = Buffer.alloc(4 << 20);
  let x = 1;
  for (let i = 0; i < b.length; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = 97 + ((x >>> 16) % 8); }
  return b;
}
function compressAll(buf) {
  let total = 0;
  const end = Date.now() + 1200;
  while (Date.now() < end) total += zlib.deflateSync(buf, { level: 9 }).length;
  return total;
}
console.log(compressAll(makeData()));
`;

// The same probe preflightPerf runs, synchronously, because skips are decided before tests start.
const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;
if (skip) console.log(`# skipping perf recording tests: ${skip}`);

function record(dir: string, name: string, source: string): { data: string; script: string } {
  const script = join(dir, `${name}.js`);
  writeFileSync(script, source);
  const data = join(dir, `${name}.data`);
  const cmd = perfRecordCommand({ hz: 999, output: data, node: process.execPath, nodeArgs: [], program: script, args: [] });
  const r = spawnSync(cmd.command, cmd.args, { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { data, script };
}

/** Weight by the leaf-most JS frame of each sample: "self" from JavaScript's point of view. */
function jsSelf(p: Profile): { byFrame: Map<number, number>; withJs: number; resolved: number } {
  const byFrame = new Map<number, number>();
  let withJs = 0;
  let resolved = 0;
  p.tree.forEachStack((stack, self) => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const f = p.frames[stack[i]];
      if (!isJs(f)) continue;
      withJs += self;
      if (f.file && f.line > 0) resolved += self;
      byFrame.set(stack[i], (byFrame.get(stack[i]) ?? 0) + self);
      return;
    }
  });
  return { byFrame, withJs, resolved };
}

function top<K>(m: Map<K, number>): K {
  return [...m].sort((a, b) => b[1] - a[1])[0][0];
}

function pidsOf(p: Profile): number[] {
  return [...new Set(p.threads.map((t) => t.pid).filter((x): x is number => x !== undefined))];
}

describe('perf record → perf script → model', { skip }, () => {
  let dir = '';
  let fib: Profile;
  let fibScript = '';
  const pids: number[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nf-perf-'));
    const r = record(dir, 'fib', FIB);
    fibScript = r.script;
    fib = await loadProfile(r.data);
    pids.push(...pidsOf(fib));
  });
  after(async () => {
    await cleanupPerfMaps(pids);
    rmSync(dir, { recursive: true, force: true });
  });

  test('JS frames resolve to file:line and the hottest matches --cpu-prof', () => {
    assert.equal(fib.format, 'perf');
    assert.ok(fib.tree.weight > 0);
    assert.match(fib.meta.command ?? '', /--perf-basic-prof --perf-prof --interpreted-frames-native-stack/);
    const { byFrame, withJs, resolved } = jsSelf(fib);
    assert.ok(withJs / fib.tree.weight > 0.5, `only ${((100 * withJs) / fib.tree.weight).toFixed(1)} % of samples have a JS frame`);
    assert.ok(resolved / withJs >= 0.9, `only ${((100 * resolved) / withJs).toFixed(1)} % of JS samples resolve to file:line`);
    console.log(
      `# ${((100 * withJs) / fib.tree.weight).toFixed(1)} % of samples have a JS frame; ${((100 * resolved) / withJs).toFixed(1)} % of those resolve to file:line`,
    );
    const hot = fib.frames[top(byFrame)];

    const profDir = join(dir, 'cpuprof');
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, fibScript], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const cp = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
      samples: number[];
    };
    const count = new Map<number, number>();
    for (const s of cp.samples) count.set(s, (count.get(s) ?? 0) + 1);
    const byFn = new Map<string, number>();
    for (const n of cp.nodes) {
      if (!n.callFrame.url.startsWith('file:')) continue;
      const k = `${n.callFrame.functionName}|${fileURLToPath(n.callFrame.url)}|${n.callFrame.lineNumber + 1}|${n.callFrame.columnNumber + 1}`;
      byFn.set(k, (byFn.get(k) ?? 0) + (count.get(n.id) ?? 0));
    }
    assert.equal(`${hot.name}|${hot.file}|${hot.line}|${hot.column}`, top(byFn));
    assert.equal(hot.name, 'fib');
    assert.equal(hot.category, 'app');
  });

  test('the JIT maps of the run are removed, and only those', async () => {
    assert.ok(pids.length > 0);
    for (const pid of pids) assert.ok(existsSync(`/tmp/perf-${pid}.map`), `perf map of ${pid} should exist before cleanup`);
    const decoy = `/tmp/perf-${2 ** 30 + (process.pid % 1000)}.map`;
    writeFileSync(decoy, '');
    try {
      await cleanupPerfMaps(pids);
      for (const pid of pids) assert.equal(existsSync(`/tmp/perf-${pid}.map`), false);
      assert.ok(existsSync(decoy), 'a map of another process was removed');
    } finally {
      rmSync(decoy, { force: true });
    }
  });

  test('zlib deflate: native zlib frames on top, under the JS caller', async () => {
    const r = record(dir, 'zlib', ZLIB);
    const p = await loadProfile(r.data);
    pids.push(...pidsOf(p));
    const self = new Map<number, number>();
    p.tree.forEachStack((stack, w) => self.set(stack[stack.length - 1], (self.get(stack[stack.length - 1]) ?? 0) + w));
    const ranked = [...self].sort((a, b) => b[1] - a[1]).map(([f]) => p.frames[f]);
    const topNames = ranked.slice(0, 3).map((f) => f.name);
    assert.ok(topNames.includes('deflate_slow'), `top self frames: ${topNames.join(', ')}`);
    assert.ok(topNames.includes('longest_match'), `top self frames: ${topNames.join(', ')}`);
    // This node links zlib statically: the frames belong to the node binary, category native.
    const deflate = ranked.find((f) => f.name === 'deflate_slow')!;
    assert.equal(deflate.lib, realpathSync(process.execPath));
    assert.equal(deflate.category, 'native');

    // Folded stacks: deflate_slow sits under compressAll (z.js) in nearly all of its samples.
    const folded: string[] = [];
    p.tree.forEachStack((stack, w) => folded.push(`${stack.map((f) => p.frames[f].name).join(';')} ${w}`));
    const weightOf = (lines: string[]): number => lines.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    const deflateLines = folded.filter((l) => /;deflate_slow \d+$/.test(l));
    const underCaller = deflateLines.filter((l) => /;compressAll;.*;deflate_slow \d+$/.test(l));
    assert.ok(weightOf(underCaller) / weightOf(deflateLines) > 0.9, deflateLines.slice(0, 3).join('\n'));
    const compressAll = p.frames.find((f) => f.name === 'compressAll')!;
    assert.equal(compressAll.file, r.script);
    assert.equal(compressAll.line, 9);

    // The CLI reads perf.data through the same registry when its report command is in place.
    const rep = spawnSync(process.execPath, [cli, 'report', r.data, '--format', 'folded'], { encoding: 'utf8' });
    if (rep.status === 0) assert.match(rep.stdout, /;compressAll [^;]*zlib\.js:9:\d+;.*;deflate_slow[^;]* \d+\n/);
    else console.log(`# node-flame report perf.data not checked: ${rep.stderr.trim().split('\n')[0]}`);
  });
});

describe('preflightPerf', () => {
  test('not Linux: points to --prof', async () => {
    const r = await preflightPerf({ platform: 'darwin' });
    assert.equal(r.ok, false);
    assert.match((r as { message: string }).message, /only on Linux/);
    assert.match((r as { message: string }).message, /--mode prof/);
  });

  test('perf missing: a nonexistent perfPath, or a PATH without perf', async () => {
    const r = await preflightPerf({ perfPath: '/nonexistent/bin/perf', platform: 'linux' });
    assert.equal(r.ok, false);
    assert.match((r as { message: string }).message, /sudo apt install linux-perf/);
    assert.match((r as { message: string }).message, /linux-tools-\$\(uname -r\)/);
    assert.match((r as { message: string }).message, /dnf install perf/);
    const empty = mkdtempSync(join(tmpdir(), 'nf-nopath-'));
    const saved = process.env.PATH;
    process.env.PATH = empty;
    try {
      const r2 = await preflightPerf({ platform: 'linux' });
      assert.equal(r2.ok, false);
      assert.match((r2 as { message: string }).message, /"perf" was not found on PATH/);
    } finally {
      process.env.PATH = saved;
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('perf_event_paranoid above 2 without CAP_PERFMON: the sysctl fix', { skip }, async () => {
    const d = mkdtempSync(join(tmpdir(), 'nf-paranoid-'));
    try {
      const paranoidFile = join(d, 'paranoid');
      writeFileSync(paranoidFile, '3\n');
      const statusFile = join(d, 'status');
      writeFileSync(statusFile, 'Name:\tnode\nCapEff:\t0000000000000000\n');
      const r = await preflightPerf({ paranoidFile, statusFile });
      assert.equal(r.ok, false);
      assert.match((r as { message: string }).message, /kernel\.perf_event_paranoid is 3/);
      assert.match((r as { message: string }).message, /sudo sysctl kernel\.perf_event_paranoid=2/);
      // The same setting does not stop a process that holds CAP_PERFMON (bit 38).
      writeFileSync(statusFile, 'CapEff:\t0000004000000000\n');
      assert.equal((await preflightPerf({ paranoidFile, statusFile })).ok, true);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  test('here, with perf working, preflight passes and probes quickly', { skip }, async () => {
    const t0 = Date.now();
    const r = await preflightPerf();
    assert.equal(r.ok, true);
    assert.ok(Date.now() - t0 < 1000, `preflight took ${Date.now() - t0} ms`);
  });
});

test('perfRecordCommand builds the documented command line', () => {
  const c = perfRecordCommand({
    output: '/r/perf.data',
    node: '/usr/bin/node',
    nodeArgs: ['--enable-source-maps'],
    program: '/app/x.js',
    args: ['--port', '1'],
  });
  assert.equal(c.command, 'perf');
  assert.deepEqual(c.args, [
    'record',
    '-F',
    '999',
    '-g',
    '-k',
    'mono',
    '-o',
    '/r/perf.data',
    '--',
    '/usr/bin/node',
    '--perf-basic-prof',
    '--perf-prof',
    '--interpreted-frames-native-stack',
    '--enable-source-maps',
    '/app/x.js',
    '--port',
    '1',
  ]);
  const d = perfRecordCommand({
    perfPath: '/opt/perf',
    hz: 4999,
    output: 'o',
    node: 'node',
    nodeArgs: ['--perf-basic-prof'],
    program: 'a.js',
    args: [],
  });
  assert.equal(d.command, '/opt/perf');
  assert.deepEqual(d.args.slice(0, 3), ['record', '-F', '4999']);
  assert.equal(d.args.filter((a) => a === '--perf-basic-prof').length, 1);
});
