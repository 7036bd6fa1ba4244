import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileBuilder } from '../../src/core/model';
import { listRuns, parseRunTime, saveSummary, summarize } from '../../src/extension/history/runs';

test('run folders are listed newest first with their run.json facts and main profile', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nf-runs-'));
  try {
    const base = join(root, '.nodeflame');
    const older = join(base, '20250102-090000-prof');
    const newer = join(base, '20250103-101112-cpu-prof');
    mkdirSync(older, { recursive: true });
    mkdirSync(newer, { recursive: true });
    mkdirSync(join(base, 'not-a-run'));
    writeFileSync(join(older, 'isolate-0x1-100-v8.log'), 'x'.repeat(10));
    writeFileSync(join(older, 'isolate-0x2-100-v8.log'), 'x'.repeat(500));
    writeFileSync(join(older, 'maps.txt'), '');
    writeFileSync(
      join(older, 'run.json'),
      JSON.stringify({
        version: 1,
        mode: 'prof',
        command: ['node', '--prof', 'app.js'],
        durationMs: 2500,
        exitCode: 0,
        profiles: ['isolate-0x1-100-v8.log', 'isolate-0x2-100-v8.log'],
      }),
    );
    writeFileSync(join(newer, 'CPU.20250103.101112.7.0.001.cpuprofile'), '{}');
    const runs = await listRuns(root);
    assert.deepEqual(
      runs.map((r) => r.name),
      ['20250103-101112-cpu-prof', '20250102-090000-prof'],
    );
    const [n, o] = runs;
    assert.equal(n.mode, 'cpu-prof', 'mode from the folder name when run.json is missing');
    assert.equal(n.durationMs, undefined);
    assert.equal(o.command, 'node --prof app.js');
    assert.equal(o.durationMs, 2500);
    assert.equal(o.exitCode, 0);
    assert.deepEqual(
      o.profiles.map((p) => p.slice(older.length + 1)),
      ['isolate-0x1-100-v8.log', 'isolate-0x2-100-v8.log'],
      'run.json order wins over size; maps.txt is not a profile',
    );
    assert.equal(o.time?.getHours(), 9);
    assert.deepEqual(await listRuns(join(root, 'nowhere')), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the summary is cached in run.json without losing its other keys', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-run-'));
  try {
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ version: 1, mode: 'prof', durationMs: 10 }));
    const b = new ProfileBuilder('folded');
    const idle = b.frame({ name: '(idle)', file: '', line: 0, column: 0, category: 'idle' });
    const main = b.frame({ name: 'main', file: '/a/app.js', line: 1, column: 1, category: 'app' });
    const hot = b.frame({ name: 'hash', file: '/a/app.js', line: 7, column: 3, category: 'app' });
    b.sample([idle], 70);
    b.sample([main, hot], 25);
    b.sample([main], 5);
    const s = summarize(b.build());
    assert.deepEqual(
      s,
      { samples: 100, topFunction: { name: 'hash', file: '/a/app.js', line: 7, self: 0.25 } },
      'idle is never the top function',
    );
    assert.equal(await saveSummary(dir, s, false), false, 'nothing is written in an untrusted workspace');
    assert.equal(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).summary, undefined);
    assert.equal(await saveSummary(dir, s, true), true);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    assert.equal(run.mode, 'prof');
    assert.deepEqual(run.summary, s);
    const [listed] = await listRuns(join(dir, '..')).then((rs) => rs.filter((r) => r.dir === dir));
    assert.equal(listed, undefined, 'a folder outside .nodeflame is not a run');
    writeFileSync(join(dir, 'run.json'), '{"version": 1, "mo');
    await saveSummary(dir, s, true);
    assert.equal(readFileSync(join(dir, 'run.json'), 'utf8'), '{"version": 1, "mo', 'a half-written run.json is left alone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run times come from the folder name', () => {
  const t = parseRunTime('20241231-235958-perf')!;
  assert.deepEqual([t.getFullYear(), t.getMonth(), t.getDate(), t.getHours(), t.getMinutes(), t.getSeconds()], [2024, 11, 31, 23, 59, 58]);
  assert.equal(parseRunTime('latest'), undefined);
});

test('a command run with a profile per process opens whole; a perf run (one perf.data) and a damaged processes list do not', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nf-runs-whole-'));
  try {
    const base = join(root, '.nodeflame');
    const write = (name: string, run: Record<string, unknown>, files: string[]) => {
      mkdirSync(join(base, name), { recursive: true });
      for (const f of files) writeFileSync(join(base, name, f), '{}');
      writeFileSync(join(base, name, 'run.json'), JSON.stringify({ version: 1, ...run }));
    };
    const procs = [
      { pid: 7, ppid: 1, command: ['node', 'npm'], exitCode: 0, startedAt: '', profiles: ['CPU.1.2.7.0.001.cpuprofile'] },
      { pid: 8, ppid: 7, command: ['node', 'server.js'], exitCode: 0, startedAt: '', profiles: ['CPU.1.2.8.0.001.cpuprofile'] },
    ];
    write('20250101-000001-cpu-prof', { mode: 'cpu-prof', processes: procs }, ['CPU.1.2.7.0.001.cpuprofile', 'CPU.1.2.8.0.001.cpuprofile']);
    write('20250101-000002-perf', { mode: 'perf', processes: procs }, ['perf.data']);
    write('20250101-000003-cpu-prof', { mode: 'cpu-prof', processes: 'garbage' }, ['CPU.1.2.7.0.001.cpuprofile']);
    const runs = await listRuns(root);
    assert.deepEqual(
      runs.map((r) => [r.name, r.wholeRun]),
      [
        ['20250101-000003-cpu-prof', false],
        ['20250101-000002-perf', false],
        ['20250101-000001-cpu-prof', true],
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('run.json paths outside the run folder are dropped: profiles, process profiles, maps file', async () => {
  const { parseRunJson } = await import('../../src/launch/run/runFolder');
  const { loadRunProfile } = await import('../../src/launch/run/runProfile');
  const root = mkdtempSync(join(tmpdir(), 'nf-runs-out-'));
  try {
    // A profile outside the run folder, which a hostile run.json names three ways.
    const outside = join(root, 'secret.cpuprofile');
    writeFileSync(
      outside,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: { functionName: 'secret', scriptId: '1', url: 'file:///s.js', lineNumber: 0, columnNumber: 0 }, hitCount: 1 },
        ],
        startTime: 0,
        endTime: 1000,
        samples: [1],
        timeDeltas: [1000],
      }),
    );
    const run = join(root, 'ws', '.nodeflame', '20260101-120000-cpu-prof');
    mkdirSync(run, { recursive: true });
    const names = ['../../../secret.cpuprofile', outside, '..\\..\\..\\secret.cpuprofile', 'a/../../x.cpuprofile', 'C:\\secret.cpuprofile'];
    writeFileSync(
      join(run, 'run.json'),
      JSON.stringify({ version: 1, mode: 'cpu-prof', profiles: names, mapsFile: '../maps.txt', processes: [{ pid: 1, profiles: names }] }),
    );
    const info = parseRunJson(readFileSync(join(run, 'run.json'), 'utf8'))!;
    assert.deepEqual(info.profiles, []);
    assert.deepEqual(info.processes?.[0].profiles, []);
    assert.equal(info.mapsFile, undefined);
    assert.deepEqual(parseRunJson('{"profiles": ["CPU.1.2.3.0.001.cpuprofile", "sub/x.cpuprofile"]}')?.profiles, [
      'CPU.1.2.3.0.001.cpuprofile',
      'sub/x.cpuprofile',
    ]);
    await assert.rejects(loadRunProfile(run), /holds no profile/, 'the run is opened without reading the file outside');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
