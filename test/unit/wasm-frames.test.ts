// WebAssembly functions are named alike in every mode, are their own category and get no source line: how each
// format spells them (a .cpuprofile's `wasm://` URL, perf's map names, folded exports of both).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuFrame, cpuProfileToModel } from '../../src/core/importers/cpuprofile';
import { perfWasmFrame, classifyPerfFrame } from '../../src/core/importers/perf/frames';
import { parseFoldedFrame } from '../../src/core/importers/folded/frame';
import { toFolded } from '../../src/core/exporters/folded';
import { ProfileBuilder } from '../../src/core/model';
import { toCpuProfile } from '../../src/core/exporters/cpuprofile';

test('cpu-prof: a wasm:// call frame is a WebAssembly function of its module, with no line', () => {
  const f = cpuFrame({ functionName: 'wasm-function[3]', url: 'wasm://wasm/755362ca', lineNumber: 0, columnNumber: 6505, scriptId: '158' });
  assert.deepEqual(f, { name: 'wasm-function[3]', file: '', line: 0, column: 0, category: 'wasm', lib: 'wasm://wasm/755362ca' });
  assert.equal(cpuFrame({ functionName: '', url: 'wasm://wasm/ab', lineNumber: 0, columnNumber: 1 })?.name, '(anonymous)');
  // V8's wrapper between JavaScript and WebAssembly is one of its builtins, not a C++ binding; WebAssembly.instantiate is one.
  assert.equal(cpuFrame({ functionName: 'GenericJSToWasmWrapper', url: '', lineNumber: -1, columnNumber: -1 })?.category, 'v8');
  assert.equal(cpuFrame({ functionName: 'instantiate', url: '', lineNumber: -1, columnNumber: -1 })?.category, 'native');
});

test("perf: V8's map names of WebAssembly code lose their index and compiler, and keep TurboFan as the tier", () => {
  assert.deepEqual(perfWasmFrame('wasm-function[2]-2-turbofan'), {
    name: 'wasm-function[2]',
    file: '',
    line: 0,
    column: 0,
    category: 'wasm',
    tier: 'turbofan',
  });
  assert.deepEqual(perfWasmFrame('spin-0-liftoff'), { name: 'spin', file: '', line: 0, column: 0, category: 'wasm' });
  assert.equal(perfWasmFrame('a-b-c-12-liftoff')?.name, 'a-b-c');
  for (const not of ['spin', 'spin-liftoff', 'spin-x1-liftoff', '-0-liftoff', 'spin--liftoff', 'spin-0-sparkplug', 'a'.repeat(100000)])
    assert.equal(perfWasmFrame(not), undefined, not.slice(0, 40));
  const f = classifyPerfFrame('JS:wasm-function[1]-1-liftoff (/tmp/perf-1.map)');
  assert.equal(f.category, 'wasm');
  assert.equal(f.name, 'wasm-function[1]');
  // A JavaScript function keeps its tier mark and script, whatever its name looks like.
  const js = classifyPerfFrame('JS:*run-1-liftoff /app/x.js:3:1 (/tmp/perf-1.map)');
  assert.equal(js.category, 'app');
  assert.equal(js.name, 'run-1-liftoff');
});

test('folded: perf-style and exported WebAssembly frames read back as WebAssembly', () => {
  assert.equal(parseFoldedFrame('JS:wasm-function[2]-2-turbofan_[j]')?.frame.category, 'wasm');
  assert.equal(parseFoldedFrame('JS:wasm-function[2]-2-turbofan_[j]')?.frame.name, 'wasm-function[2]');
  const exported = parseFoldedFrame('spin (wasm://wasm/ff01b51e)')!;
  assert.deepEqual(
    { name: exported.frame.name, category: exported.frame.category, lib: exported.frame.lib, plain: exported.plain },
    { name: 'spin', category: 'wasm', lib: 'wasm://wasm/ff01b51e', plain: false },
  );
  assert.equal(parseFoldedFrame('wasm-function[7]')?.frame.category, 'wasm');
  assert.equal(parseFoldedFrame('wasm-function[7]')?.plain, false);
  // Round trip: the module goes out as the frame's library, and comes back.
  const b = new ProfileBuilder('cpuprofile');
  const id = b.frame(cpuFrame({ functionName: 'spin', url: 'wasm://wasm/ff01b51e', lineNumber: 0, columnNumber: 9 })!);
  b.sample([id], 3);
  const text = toFolded(b.build());
  assert.match(text, /^spin \(wasm:\/\/wasm\/ff01b51e\) 3$/m);
});

test('a .cpuprofile export keeps WebAssembly: its module URL, or wasm://wasm/ when the profile named none', () => {
  const b = new ProfileBuilder('v8log');
  const fromCpuProf = b.frame(cpuFrame({ functionName: 'spin', url: 'wasm://wasm/ff01b51e', lineNumber: 0, columnNumber: 9 })!);
  const fromPerf = b.frame(perfWasmFrame('spin-0-turbofan')!);
  b.sample([fromCpuProf], 2);
  b.sample([fromPerf], 5);
  const back = cpuProfileToModel(toCpuProfile(b.build()));
  const rows = back.frames.filter((f) => f.name === 'spin');
  assert.deepEqual(rows.map((f) => [f.category, f.lib, f.file, f.line]).sort(), [
    ['wasm', undefined, '', 0],
    ['wasm', 'wasm://wasm/ff01b51e', '', 0],
  ]);
  assert.equal(back.lineHits.size, 0, 'no line heat for WebAssembly');
});
