import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { IsolateLog } from '../../src/core/importers/v8log/isolate';
import { NativeResolver } from '../../src/core/importers/v8log/native';

/**
 * A function that ran first as bytecode (`~`, positions logged) and then as Sparkplug code (`^`,
 * empty position table), in the layout V8 11 writes. Line 4 calls `leaf` once, line 5 twice as
 * rarely (by the bytecode ticks); `other` only ever runs as Sparkplug code.
 */
const SOURCE = [
  'function leaf() { return 1; }',
  'function main() {',
  '  let x = 0;',
  '  x += leaf();',
  '  return x + leaf();',
  '}',
  'function other() { return leaf(); }',
  '',
].join('\n');
const at = (line: number, text: string) => {
  const start =
    SOURCE.split('\n')
      .slice(0, line - 1)
      .join('\n').length + (line > 1 ? 1 : 0);
  return SOURCE.indexOf(text, start);
};

const HEAD = ['v8-version,11,3,244,8,-node.38,0', 'profiler,begin,1000', `script-source,8,/app/s.js,${SOURCE.replace(/\n/g, '\\n')}`];
const CODE = [
  'code-creation,JS,10,100,0x10000,64,leaf /app/s.js:1:14,0x5000,~',
  `code-source-info,0x10000,8,13,29,C0O${at(1, 'return')},,`,
  'code-creation,JS,10,101,0x20000,64,main /app/s.js:2:14,0x5100,~',
  // Bytecode offsets 0, 10, 20 → lines 3, 4 (the call to leaf), 5 (the other call).
  `code-source-info,0x20000,8,43,100,C0O${at(3, 'let')}C10O${at(4, 'leaf')}C20O${at(5, 'leaf')},,`,
  'code-creation,JS,11,102,0x30000,256,main /app/s.js:2:14,0x5100,^',
  'code-source-info,0x30000,8,43,100,,,',
  'code-creation,JS,11,103,0x40000,256,other /app/s.js:7:15,0x5200,^',
  'code-source-info,0x40000,8,100,130,,,',
];

let ts = 1000;
const tick = (pc: number, ...callers: number[]) =>
  `tick,0x${pc.toString(16)},${(ts += 1000)},0,0x0,0${callers.map((c) => `,0x${c.toString(16)}`).join('')}`;
const times = (n: number, line: string) => Array.from({ length: n }, () => line);

function replay(ticks: string[]): { iso: IsolateLog; p: Profile } {
  const builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof' });
  const iso = new IsolateLog({ builder, native: new NativeResolver() });
  for (const l of [...HEAD, ...CODE, ...ticks]) assert.equal(iso.line(l), undefined, l);
  iso.finish();
  return { iso, p: builder.build() };
}

const hits = (p: Profile, line: number) => p.lineHits.get('/app/s.js')?.get(line) ?? { self: 0, total: 0 };

test('a Sparkplug caller gets the line its function calls the callee from as bytecode', () => {
  const { iso, p } = replay([
    ...times(3, tick(0x10004, 0x2000a)), // leaf, called from main~ at line 4
    ...times(5, tick(0x10004, 0x30040)), // leaf, called from main^: the line is not in the log
  ]);
  assert.equal(hits(p, 4).total, 8, 'the 5 Sparkplug ticks on line 4');
  assert.equal(hits(p, 4).self, 0);
  assert.equal(hits(p, 1).self, 8, 'leaf itself');
  assert.equal(hits(p, 5).total, 0);
  assert.deepEqual([...iso.linelessTicks], [['sparkplug', 5]]);
  const note = iso.notes('x.log').find((n) => n.includes('without source positions'));
  assert.ok(
    note && note.includes('5 of 8 ticks') && note.includes('every such frame in 5 of them') && note.includes('some in 0; 0 stayed without'),
    note,
  );
});

test('calls seen on several lines share the Sparkplug ticks by how often each was seen', () => {
  const { p } = replay([...times(3, tick(0x10004, 0x2000a)), tick(0x10004, 0x20014), ...times(8, tick(0x10004, 0x30040))]);
  assert.equal(hits(p, 4).total, 3 + 6);
  assert.equal(hits(p, 5).total, 1 + 2);
});

test('no line without evidence: a call never seen with positions, and Sparkplug self time, stay without', () => {
  const { iso, p } = replay([
    ...times(2, tick(0x10004, 0x2000a)),
    ...times(3, tick(0x10004, 0x40010)), // other^ → leaf: other never ran as bytecode
    ...times(4, tick(0x30080)), // in main^ itself: no callee to go by
    ...times(6, tick(0x10004, 0x40010, 0x30040)), // leaf ← other^ ← main^: main calls other, never seen
  ]);
  assert.equal(hits(p, 4).total, 2, 'only the bytecode ticks');
  assert.equal(hits(p, 7).total, 0);
  assert.deepEqual([...(p.lineHits.get('/app/s.js')?.keys() ?? [])].sort(), [1, 4]);
  const note = iso.notes('x.log').find((n) => n.includes('without source positions'));
  assert.ok(
    note && note.includes('13 of 15 ticks') && note.includes('every such frame in 0 of them') && note.includes('13 stayed without'),
    note,
  );
});

test('two frames of one tick on the same inferred line count it once', () => {
  // main^ → main^ (recursion, both calling through line 4) → leaf: main calls main only from bytecode at line 4 too.
  const { p } = replay([tick(0x10004, 0x2000a), tick(0x30004, 0x2000a), ...times(2, tick(0x10004, 0x30040, 0x30040))]);
  assert.equal(hits(p, 4).total, 2 + 2);
});
