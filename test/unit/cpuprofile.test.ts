import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuFrame, cpuprofileImporter, cpuProfileToModel } from '../../src/core/importers/cpuprofile';
import { fileUrlToPathAnyOs } from '../../src/core/paths';
import { functionStats, ProfileError } from '../../src/core/model';
import { toCpuProfile } from '../../src/core/exporters/cpuprofile';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-cpuprof-', '.cpuprofile');

test('file:// URLs become paths of the OS that wrote them', () => {
  assert.equal(fileUrlToPathAnyOs('file:///home/me/a%20b/x.js'), '/home/me/a b/x.js');
  assert.equal(fileUrlToPathAnyOs('file:///C:/Users/me/app/x.js'), 'C:\\Users\\me\\app\\x.js');
  assert.equal(fileUrlToPathAnyOs('file:///c%3A/proj/%E6%97%A5%E6%9C%AC.js'), 'C:\\proj\\日本.js');
  assert.equal(fileUrlToPathAnyOs('file://server/share/x.js'), '\\\\server\\share\\x.js');
  assert.equal(fileUrlToPathAnyOs('file:///tmp/100%.js'), '/tmp/100%.js');
  assert.equal(fileUrlToPathAnyOs('node:fs'), 'node:fs');
  assert.equal(fileUrlToPathAnyOs('/already/a/path.js'), '/already/a/path.js');
});

test('call frames: 0-based V8 positions become 1-based, categories from url and name', () => {
  const f = cpuFrame({ functionName: 'fib', url: 'file:///app/src/x.js', lineNumber: 0, columnNumber: 12 })!;
  assert.deepEqual([f.name, f.file, f.line, f.column, f.category], ['fib', '/app/src/x.js', 1, 13, 'app']);
  const dep = cpuFrame({
    functionName: 'handle',
    url: 'file:///D:/srv/node_modules/express/lib/router/layer.js',
    lineNumber: 85,
    columnNumber: 49,
  })!;
  assert.deepEqual(
    [dep.file, dep.line, dep.category, dep.pkg],
    ['D:\\srv\\node_modules\\express\\lib\\router\\layer.js', 86, 'dependency', 'express'],
  );
  assert.equal(cpuFrame({ functionName: 'readSync', url: 'node:fs', lineNumber: 1, columnNumber: 1 })!.category, 'node');
  assert.equal(
    cpuFrame({ functionName: '', url: 'node:internal/main/run_main_module', lineNumber: 0, columnNumber: 0 })!.name,
    '(anonymous)',
  );
  assert.equal(cpuFrame({ functionName: 'compileFunction', url: '', lineNumber: -1, columnNumber: -1 })!.category, 'native');
  // eval'd code: its own category, named as such, each script apart (eval-code.test.ts runs it for real)
  const ev = cpuFrame({ functionName: 'evaluated', url: '', lineNumber: 2, columnNumber: 0, scriptId: '42' })!;
  assert.deepEqual([ev.name, ev.category, ev.line], ["evaluated (eval'd code #42)", 'eval', 3]);
  assert.equal(cpuFrame({ functionName: 'RegExp: a+b', url: '', lineNumber: -1, columnNumber: -1 })!.category, 'v8');
  assert.equal(cpuFrame({ functionName: '(program)', url: '', lineNumber: -1, columnNumber: -1 })!.category, 'program');
  assert.equal(cpuFrame({ functionName: '(idle)', url: '' })!.category, 'idle');
  assert.equal(cpuFrame({ functionName: '(garbage collector)', url: '' })!.category, 'gc');
  assert.equal(cpuFrame({ functionName: '(root)', url: '' }), null);
});

const cf = (functionName: string, url = '', lineNumber = -1, columnNumber = -1) => ({
  functionName,
  scriptId: '0',
  url,
  lineNumber,
  columnNumber,
});
/** root → (program) | main → work → (hot) ; root → (garbage collector); node order deliberately not parent-first. */
const small = {
  nodes: [
    { id: 1, callFrame: cf('(root)'), hitCount: 0, children: [2, 3, 6] },
    {
      id: 4,
      callFrame: cf('work', 'file:///app/x.js', 9, 2),
      hitCount: 3,
      children: [5],
      positionTicks: [
        { line: 11, ticks: 2 },
        { line: 12, ticks: 1 },
      ],
    },
    { id: 2, callFrame: cf('(program)'), hitCount: 1 },
    { id: 3, callFrame: cf('main', 'file:///app/x.js', 0, 0), hitCount: 0, children: [4] },
    { id: 5, callFrame: cf('work', 'file:///app/x.js', 9, 2), hitCount: 1, positionTicks: [{ line: 11, ticks: 1 }] },
    { id: 6, callFrame: cf('(garbage collector)'), hitCount: 1 },
  ],
  startTime: 1_000_000,
  endTime: 1_010_000,
  // 6 samples at 1000 µs + deltas; the last one lasts until endTime.
  samples: [2, 4, 4, 5, 6, 4],
  timeDeltas: [500, 1000, 1000, 2000, 1000, 1000],
};

test('samples, time per sample, duration, timeline and line hits', () => {
  const p = cpuProfileToModel(structuredClone(small), 'x.cpuprofile');
  assert.equal(p.format, 'cpuprofile');
  assert.equal(p.tree.weight, 6);
  assert.equal(p.meta.durationMs, 10);
  const by = new Map(functionStats(p.tree, p.frames.length).map((s) => [p.frames[s.frame].name, s]));
  assert.equal(by.get('work')!.self, 4);
  assert.equal(by.get('work')!.total, 4, 'work → work recursion counted once');
  assert.equal(by.get('main')!.total, 4);
  assert.equal(by.get('(program)')!.self, 1);
  assert.equal(by.get('(garbage collector)')!.self, 1);
  assert.ok(!p.frames.some((f) => f.name === '(root)'), '(root) is the model root, not a frame');
  // Sample times from start: .5 1.5 2.5 4.5 5.5 6.5 ms; each lasts until the next (the last until endTime).
  assert.deepEqual([...p.timeline!.times], [0.5, 1.5, 2.5, 4.5, 5.5, 6.5]);
  assert.equal(by.get('work')!.selfTime, 1 + 1 + 2 + 3.5);
  assert.equal(by.get('(program)')!.selfTime, 1);
  assert.equal(p.tree.totalTime[0], 9.5);
  const leafNames = [...p.timeline!.nodes].map((node) => p.frames[p.tree.frame[node]].name);
  assert.deepEqual(leafNames, ['(program)', 'work', 'work', 'work', '(garbage collector)', 'work']);
  const work = p.frames.find((f) => f.name === 'work')!;
  assert.deepEqual([work.line, work.column], [10, 3]);
  // positionTicks lines are already 1-based.
  assert.deepEqual([...p.lineHits.get('/app/x.js')!].sort(), [
    [11, { self: 3, total: 3 }],
    [12, { self: 1, total: 1 }],
  ]);
});

test('a profile without samples falls back to hit counts', () => {
  const p = cpuProfileToModel({ nodes: structuredClone(small.nodes) });
  assert.equal(p.tree.weight, 6);
  assert.equal(p.meta.durationMs, null);
  assert.equal(p.timeline, undefined);
});

test("ticks above a function's declaration are code V8 inlined into it: a warning, nothing moved", () => {
  const NOTE = /at least (\S+ %) of the samples ran in functions V8 inlined into their caller, most of them in work \(\/app\/x\.js:10\)/;
  assert.deepEqual(cpuProfileToModel(structuredClone(small)).warnings, [], 'ticks on its own lines: no warning');
  // `work` (line 10) with ticks on line 3: 2 of the 6 samples, and so with hit counts alone.
  const inlined = structuredClone(small);
  inlined.nodes[1].positionTicks = [
    { line: 3, ticks: 2 },
    { line: 12, ticks: 1 },
  ];
  const p = cpuProfileToModel(structuredClone(inlined));
  assert.equal(p.warnings.length, 1);
  assert.equal(NOTE.exec(p.warnings[0])?.[1], '33.3 %');
  assert.equal(functionStats(p.tree, p.frames.length).find((s) => p.frames[s.frame].name === 'work')!.self, 4, 'not re-attributed');
  assert.match(cpuProfileToModel({ nodes: structuredClone(inlined.nodes) }).warnings[0], NOTE);
  // Below a tenth of the samples it is not said.
  inlined.nodes[1].positionTicks = [
    { line: 3, ticks: 1 },
    { line: 12, ticks: 2 },
  ];
  inlined.samples = [...inlined.samples, ...Array<number>(6).fill(2)];
  inlined.timeDeltas = [...inlined.timeDeltas, ...Array<number>(6).fill(10)];
  assert.deepEqual(cpuProfileToModel(inlined).warnings, []);
});

test('importer: sniffs content, reads the inspector wrapper, and round-trips our own export', async () => {
  const text = JSON.stringify(small);
  assert.equal(cpuprofileImporter.sniff(Buffer.from(text), 'whatever.txt'), true);
  assert.equal(cpuprofileImporter.sniff(Buffer.from('\uFEFF  ' + text), 'x'), true);
  assert.equal(cpuprofileImporter.sniff(Buffer.from('{"traceEvents":[]}'), 'x.cpuprofile'), false);
  const wrapped = await cpuprofileImporter.load(file(JSON.stringify({ profile: small })), {});
  assert.equal(wrapped.tree.weight, 6);
  const back = await cpuprofileImporter.load(file(JSON.stringify(toCpuProfile(wrapped))), {});
  const names = (p: typeof back) =>
    functionStats(p.tree, p.frames.length)
      .map((s) => `${p.frames[s.frame].name}:${s.self}:${s.total}`)
      .sort();
  assert.deepEqual(names(back), names(wrapped));
});

test('truncated, non-JSON and shapeless input are ProfileErrors', async () => {
  const text = JSON.stringify(small);
  const bad = async (content: string, re: RegExp) =>
    assert.rejects(
      cpuprofileImporter.load(file(content), {}),
      (e) => e instanceof ProfileError && re.test(e.message) && !e.message.includes('\n'),
    );
  await bad(text.slice(0, text.length / 2), /truncated or corrupt/);
  await bad('{"nodes": [', /truncated or corrupt/);
  await bad('{"nodes": []}', /no "nodes"/);
  await bad('{"nodes": [{"id": 1}]}', /lacks "id" or "callFrame"/);
});
